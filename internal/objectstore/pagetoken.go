package objectstore

import "encoding/base64"

// A page token is the last key of the previous page, encoded so that callers
// treat it as opaque (the encoding may change; the tokens are short-lived).
func encodePageToken(lastKey string) string {
	if lastKey == "" {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(lastKey))
}

func decodePageToken(token string) (string, error) {
	if token == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) == 0 || len(raw) > MaxKeyBytes {
		return "", newError(KindInvalidArgument, "", "", "malformed page token", nil)
	}
	return string(raw), nil
}
