package jsonenc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/platform/backend/internal/jsonenc/jsonenctest"
)

// nastyStrings: the shared corpus, and the benchmark's strings.
func nastyStrings() []string {
	return append(jsonenctest.NastyStrings(), ascii40, mixed200)
}

// The benchmark's strings: an event type or an id (the usual member), and
// a text with something to escape every few bytes.
var (
	ascii40  = "status.incident.updated org-0190abcd-123"
	mixed200 = strings.Repeat("<b>Tom & \"Jerry\"</b>\n\tcafé 日本 \u2028 \xff end. ", 5)[:200]
)

// TestAppendString: each escape encoding/json writes, spelled out (the
// fuzz test checks against encoding/json itself).
func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain text 123", `"plain text 123"`},
		{`a"b\c/d`, `"a\"b\\c/d"`},
		{"<a href='x'>&</a>", `"\u003ca href='x'\u003e\u0026\u003c/a\u003e"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f" + `"`},
		{"é日本🙂", `"é日本🙂"`},
		{"a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"bad \xff\xfe byte", `"bad \ufffd\ufffd byte"`},
		{"trailing \xe2\x82", `"trailing \ufffd\ufffd"`},
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`}, // a surrogate's encoding is invalid UTF-8
		{strings.Repeat("x", 1000) + "<", `"` + strings.Repeat("x", 1000) + `\u003c"`},
	} {
		if got := AppendString([]byte("prefix:"), tc.in); string(got) != "prefix:"+tc.want {
			t.Errorf("%q: got %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzAppendString: any string encodes as json.Marshal encodes it.
func FuzzAppendString(f *testing.F) {
	for _, s := range nastyStrings() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s (valid UTF-8 %v)", s, got, want, utf8.ValidString(s))
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	for _, bc := range []struct{ name, s string }{{"ascii40", ascii40}, {"mixed200", mixed200}} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 1024)
			b.SetBytes(int64(len(bc.s)))
			for b.Loop() {
				buf = AppendString(buf[:0], bc.s)
			}
		})
	}
}
