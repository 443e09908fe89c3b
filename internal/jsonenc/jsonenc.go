// Package jsonenc appends JSON text byte for byte as encoding/json writes
// it, without its reflection and allocations: the one string escaper and
// the one value writer the hand-written encoders share (the relay's event
// envelope, a request's input, the projection rows, the notification
// envelope).
package jsonenc

import "unicode/utf8"

const hex = "0123456789abcdef"

// safe holds the bytes written as they are: ASCII from space on but the
// quote, the backslash and the HTML characters. One lookup a byte scans a
// string with nothing to escape, the usual member (an id, a type): 32 ns
// for 40 bytes where a chain of comparisons took 56 (BenchmarkAppendString).
var safe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendString appends s as json.Marshal writes a string: encoding/json's
// string encoding with HTML escaping, its default (<, > and & escaped,
// invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if safe[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
