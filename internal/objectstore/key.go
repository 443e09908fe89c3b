package objectstore

import (
	"strings"
	"unicode/utf8"
)

// Limits of a key. 1024 bytes is S3's own limit; a segment becomes a file
// name in the local backend, whose file systems stop at 255 bytes, and the
// local layout adds a suffix, hence the lower bound per segment.
const (
	MaxKeyBytes     = 1024
	MaxSegmentBytes = 200
)

// ValidateKey refuses keys that could name something outside the caller's
// namespace or that a backend cannot hold: empty, over MaxKeyBytes, invalid
// UTF-8, control characters (NUL included), a backslash, a leading or
// trailing slash (absolute paths, "directories"), empty, "." or ".."
// segments, or a segment over MaxSegmentBytes. The same rules hold for every
// backend, so a key that works locally works in production.
func ValidateKey(key string) error {
	if key == "" {
		return newError(KindInvalidKey, "", "", "empty key", nil)
	}
	if strings.HasSuffix(key, "/") {
		return newError(KindInvalidKey, "", key, "key ends with a slash", nil)
	}
	return validatePath(key)
}

// validatePrefix is ValidateKey for a List prefix: empty is everything, and
// a trailing slash (a whole "folder") or a partial last segment is fine.
func validatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	trimmed := strings.TrimSuffix(prefix, "/")
	if trimmed == "" {
		return newError(KindInvalidKey, "", prefix, "prefix is a lone slash", nil)
	}
	return validatePath(trimmed)
}

func validatePath(p string) error {
	if len(p) > MaxKeyBytes {
		return newError(KindInvalidKey, "", p, "key longer than 1024 bytes", nil)
	}
	if !utf8.ValidString(p) {
		return newError(KindInvalidKey, "", p, "key is not UTF-8", nil)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return newError(KindInvalidKey, "", p, "key holds a control character", nil)
		}
		if r == '\\' {
			return newError(KindInvalidKey, "", p, "key holds a backslash", nil)
		}
	}
	if strings.HasPrefix(p, "/") {
		return newError(KindInvalidKey, "", p, "key is absolute", nil)
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "":
			return newError(KindInvalidKey, "", p, "key has an empty segment", nil)
		case seg == "." || seg == "..":
			return newError(KindInvalidKey, "", p, "key has a dot segment", nil)
		case len(seg) > MaxSegmentBytes:
			return newError(KindInvalidKey, "", p, "key segment longer than 200 bytes", nil)
		}
	}
	return nil
}
