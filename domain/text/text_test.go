package text_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/platform/backend/domain/text"
)

// The schema patterns and the domain checks agree on every code point of
// the Basic Multilingual Plane, so the HTTP layer and the domain refuse the
// same text.
func TestPatternsAgreeWithChecks(t *testing.T) {
	line := regexp.MustCompile(text.LinePattern)
	multi := regexp.MustCompile(text.MultiLinePattern)
	for r := rune(0); r <= 0xffff; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // surrogates are not characters
		}
		s := "a" + string(r) + "b"
		if got, want := line.MatchString(s), text.IsLine(s); got != want {
			t.Errorf("U+%04X: line pattern %v, IsLine %v", r, got, want)
		}
		if got, want := multi.MatchString(s), text.IsMultiLine(s); got != want {
			t.Errorf("U+%04X: multi-line pattern %v, IsMultiLine %v", r, got, want)
		}
	}
}

func TestLineAndMultiLine(t *testing.T) {
	tests := []struct {
		name      string
		s         string
		max       int
		line      bool // Line accepts it
		multiLine bool // MultiLine accepts it
	}{
		{"plain", "Database upgrade", 200, true, true},
		{"unicode counts characters, not bytes", strings.Repeat("é", 200), 200, true, true},
		{"one character too long", strings.Repeat("a", 201), 200, false, false},
		{"line feed", "one\ntwo", 200, false, true},
		{"carriage return and tab", "one\r\n\ttwo", 200, false, true},
		{"NUL", "a\x00b", 200, false, false},
		{"escape sequence", "\x1b[31mred", 200, false, false},
		{"DEL", "a\x7fb", 200, false, false},
		{"C1 control", "a\u0085b", 200, false, false},
		{"empty is not this check's business", "", 200, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := text.Line(nil, "/m", tt.s, tt.max); (len(got) == 0) != tt.line {
				t.Errorf("Line: %v, want accepted=%v", got, tt.line)
			} else if len(got) == 1 && (got[0].Pointer != "/m" || got[0].Detail == "") {
				t.Errorf("Line problem %+v", got[0])
			}
			if got := text.MultiLine(nil, "/m", tt.s, tt.max); (len(got) == 0) != tt.multiLine {
				t.Errorf("MultiLine: %v, want accepted=%v", got, tt.multiLine)
			}
		})
	}
}

// TestNonBlankPatternsSayWhatTrimDoes: a text the patterns admit is not
// blank after Trim, and one they refuse (without control characters) is.
func TestNonBlankPatternsSayWhatTrimDoes(t *testing.T) {
	line, multi := regexp.MustCompile(text.NonBlankLinePattern), regexp.MustCompile(text.NonBlankTextPattern)
	for _, s := range []string{"a", " a ", "  ", "", "\u3000", "a b", " \t", "\u00a0"} {
		if got, want := line.MatchString(s), text.IsLine(s) && text.Trim(s) != ""; got != want {
			t.Errorf("line %q: pattern %v, Trim says %v", s, got, want)
		}
	}
	for _, s := range []string{"a", "\n a \n", " \r\n\t ", "", "x\ny", "\t"} {
		if got, want := multi.MatchString(s), text.IsMultiLine(s) && text.Trim(s) != ""; got != want {
			t.Errorf("text %q: pattern %v, Trim says %v", s, got, want)
		}
	}
}
