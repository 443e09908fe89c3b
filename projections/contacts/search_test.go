package contacts

import "testing"

func TestSearchKeys(t *testing.T) {
	stats := &commonWords{words: []string{"com", "company", "example", "gmbh", "lee"}, freqs: []float64{0.9, 0.2, 1, 0.12, 0.03}}
	cases := []struct {
		q                   string
		keyTerms, keyNeedle string
	}{
		// An email typed whole: its rare words, and the stretch of them.
		{"ines.garcxa34115@bluth38.example.com", "'ines':* & 'garcxa34115':* & 'bluth38':*", "ines.garcxa34115@bluth38"},
		// "co" begins "com" and "company" (1.1 of the rows: at most 1).
		{"Lee co", "'Lee':*", "Lee"},
		// Nothing rare: the whole query.
		{"example com", "", ""},
		// Nothing common: the whole query.
		{"Bluth GmbH", "", ""},
		// One letter is common; "br" too short a stretch for trigrams.
		{"o'br", "'br':*", ""},
		{"x", "", ""},
		// The longest stretch of rare words.
		{"ab.com.garcia-lopez", "'ab':* & 'garcia':* & 'lopez':*", "garcia-lopez"},
	}
	for _, tc := range cases {
		s := newSearch(tc.q).keys(stats)
		if s.keyTerms != tc.keyTerms || s.keyNeedle != tc.keyNeedle {
			t.Errorf("%q: keys %q, %q; want %q, %q", tc.q, s.keyTerms, s.keyNeedle, tc.keyTerms, tc.keyNeedle)
		}
	}
	if f := stats.freq("co"); f != 1 {
		t.Errorf("freq(co) = %v", f)
	}
	if f := stats.freq("zz"); f != 0 {
		t.Errorf("freq(zz) = %v", f)
	}
	if s := newSearch("ines.garcxa34115@bluth38.example.com").keys(nil); s.keyTerms != "" || s.keyNeedle != "" {
		t.Errorf("keys without statistics: %+v", s)
	}
}
