package projections

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/platform/backend/internal/jsonenc"
)

// Temporary (removed with the old escaper): the package's string encoding
// and jsonenc.AppendString write the same bytes.
func TestJSONEncDifferential(t *testing.T) {
	old := func(s string) []byte {
		// encodeObjects today: the plain path, else its json.Encoder
		if b, ok := appendPlainString(nil, s); ok {
			return b
		}
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(s); err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	corpus := []string{"", "plain", "org_01HZX", `quo"te`, `back\slash`, "<b>&amp;</b>", "a<b", "a>b", "a&b",
		"\x00\x01\b\f\n\r\t\x1f\x7f", "line\u2028sep\u2029", "bad \xff\xfe byte", "trailing \xe2\x82", "\xed\xa0\x80", "é日本🙂",
		strings.Repeat("x", 100000), strings.Repeat("x", 100000) + "<", strings.Repeat("\u2028", 5000), strings.Repeat("ab\xffc", 5000)}
	var all strings.Builder
	for c := 0; c < 256; c++ {
		all.WriteByte(byte(c))
	}
	corpus = append(corpus, all.String())
	pieces := []string{"a", "Z", "0", " ", "<", ">", "&", "\"", "\\", "/", "\n", "\x00", "\x1f", "\x7f", "\x80", "\xff", "\xe2\x80", "é", "日", "🙂", "\u2028", "\u2029", "\ufffd"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var s strings.Builder
		for range r.IntN(40) {
			s.WriteString(pieces[r.IntN(len(pieces))])
		}
		corpus = append(corpus, s.String())
	}
	for _, s := range corpus {
		want, _ := json.Marshal(s)
		if got := jsonenc.AppendString(nil, s); !bytes.Equal(got, old(s)) || !bytes.Equal(got, want) {
			t.Fatalf("%.80q: jsonenc %.200s, old %.200s", s, got, old(s))
		}
	}
}
