package httpapi

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/platform/backend/internal/jsonenc"
)

// encodeInput writes the assembled input as json.Marshal does, byte for
// byte (the request fingerprint of an idempotency key hashes it, so a
// retry across versions must hash alike), without its reflection: objects
// with their members sorted, strings through jsonenc, numbers as decoded.
// A value it does not write itself (a float from the query) goes to
// json.Marshal, for the whole input.
func encodeInput(v any) ([]byte, error) {
	if b, ok := appendInput(make([]byte, 0, 256), v); ok {
		return b, nil
	}
	return json.Marshal(v)
}

func appendInput(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return jsonenc.AppendString(b, x), true
	case bool:
		return strconv.AppendBool(b, x), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case json.Number:
		if !jsonNumber(string(x)) {
			return b, false
		}
		return append(b, x...), true
	case []any:
		b = append(b, '[')
		for i, m := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendInput(b, m); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		var small [16]string
		keys := small[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonenc.AppendString(b, k), ':')
			var ok bool
			if b, ok = appendInput(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// jsonNumber reports whether s is a JSON number (RFC 8259's grammar), what
// json.Marshal checks before writing a json.Number as it is.
func jsonNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}
