package stripe

import (
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	tests := map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		"0":                             0,
		"-3":                            0,
		"soon":                          0,
		"99999999999999":                maxRetryAfter,
		"Sat, 14 Mar 2026 12:00:30 GMT": 30 * time.Second,
		"Sat, 14 Mar 2026 11:59:00 GMT": 0,
	}
	for v, want := range tests {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

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
