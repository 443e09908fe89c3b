package stripe

import (
	"testing"
)

func TestTokenKeepsIdentifiersOnly(t *testing.T) {
	for in, want := range map[string]string{
		"card_declined":        "card_declined",
		"line_items[0][price]": "line_items[0][price]",
		"req_Lq3vZ8yB1xW0aT":   "req_Lq3vZ8yB1xW0aT",
		"two words":            "",
		"<b>":                  "",
		"é":                    "",
	} {
		if got := token(in); got != want {
			t.Errorf("%q: %q", in, got)
		}
	}
}
