package contacts

import (
	"strings"
	"testing"
)

// TestRestoreCellUndoesNeutralizeCell: an import reads every exported cell
// back as the value it was (the export's escaping recognised, a real
// leading apostrophe kept), and no exported cell starts a formula. Every
// value of up to four characters over the characters that matter.
func TestRestoreCellUndoesNeutralizeCell(t *testing.T) {
	alphabet := []string{"'", "=", "+", "-", "@", "\t", "\r", "a", " ", "é"}
	var values []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		values = append(values, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 4)
	for _, v := range values {
		cell := NeutralizeCell(v)
		if got := RestoreCell(cell); got != v {
			t.Fatalf("%q exported as %q reads back as %q", v, cell, got)
		}
		if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
			t.Fatalf("%q exported as %q starts a formula", v, cell)
		}
	}
	for in, want := range map[string]string{"'+1 555 0100": "+1 555 0100", "'Tis": "'Tis", "''": "'", "'": "'", "x'=": "x'=", "'-x@y": "-x@y"} {
		if got := RestoreCell(in); got != want {
			t.Errorf("RestoreCell(%q) = %q, want %q", in, got, want)
		}
	}
}
