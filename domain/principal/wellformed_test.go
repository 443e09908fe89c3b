package principal

import (
	"strings"
	"testing"
)

// The spelled-out checks accept exactly what the patterns accept.
func TestWellFormedMatchesPatterns(t *testing.T) {
	alphabet := []string{"a", "z", "0", "9", "_", "-", "*", "A", ".", ":", "\n", "é", " "}
	var cases []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		cases = append(cases, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 3)
	cases = append(cases, strings.Repeat("a", 62), strings.Repeat("a", 63), strings.Repeat("a", 64), "status", "gateway_x", "a-b_c")
	for _, s := range cases {
		if got, want := wellFormedAppID(s), appIDPattern.MatchString(s); got != want {
			t.Errorf("app id %q: %v, pattern says %v", s, got, want)
		}
		if got, want := wellFormedSegment(s), SegmentPattern.MatchString(s); got != want {
			t.Errorf("segment %q: %v, pattern says %v", s, got, want)
		}
	}
}
