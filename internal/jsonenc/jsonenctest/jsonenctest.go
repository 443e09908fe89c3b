// Package jsonenctest holds the strings the differential tests of the
// hand-written JSON encoders (jsonenc, the relay's envelope, a request's
// input, the projection rows, the notification envelope) write against
// encoding/json: one corpus, so that a case added for one is checked by all.
package jsonenctest

import "strings"

// NastyStrings are strings whose JSON encoding escapes something: control
// bytes, quotes, HTML, U+2028/2029, invalid UTF-8 (a stray byte, a rune cut
// short, a surrogate's encoding), multi-byte runes, and every byte value
// once.
func NastyStrings() []string {
	out := []string{"", "plain", `quo"te`, `back\slash`, "<b>&amp;</b>", "line\u2028sep\u2029", "bad \xff\xfe byte", "é日本🙂",
		"\x00\x01\b\f\n\r\t\x1f\x7f", "trailing \xe2\x82", "\xed\xa0\x80", "mixed <\xff>\u2028\"\\"}
	var all strings.Builder
	for c := 0; c < 256; c++ {
		all.WriteByte(byte(c))
	}
	return append(out, all.String())
}
