package linkedin

import "strings"

// LinkedIn reads commentary as "little text": these characters are markup
// unless escaped with a backslash, and an unescaped one makes the post fail
// or lose text.
const reserved = `\|{}@[]()<>#*_~`

// escape makes text literal little text.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(reserved, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unescape reads little text back as the text we sent.
func unescape(s string) string {
	var b strings.Builder
	escaped := false
	for _, r := range s {
		if r == '\\' && !escaped {
			escaped = true
			continue
		}
		escaped = false
		b.WriteRune(r)
	}
	return b.String()
}
