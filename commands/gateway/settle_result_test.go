package gateway

import (
	"encoding/json"
	"testing"
)

// A settle's result, as the event store encodes it, is read without a
// decode (compared with settled and unsettled, which must stay
// json.Marshal's text of settling: a change to settling fails here); any
// other text of it is decoded, as before.
func TestSettleResultReadWithoutDecoding(t *testing.T) {
	for _, appended := range []bool{true, false} {
		b, err := json.Marshal(settling{Appended: appended})
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendedOf(b)
		if err != nil || got != appended {
			t.Fatalf("appendedOf(%s) = %v, %v; want %v", b, got, err, appended)
		}
		if allocs := testing.AllocsPerRun(100, func() { _, _ = appendedOf(b) }); allocs != 0 {
			t.Fatalf("reading %s allocates %.0f times: decoded, not compared", b, allocs)
		}
	}
	for _, tc := range []struct {
		text     string
		appended bool
		fails    bool
	}{
		{`{"appended": true}`, true, false}, // a replay's text (jsonb)
		{`{"appended": false}`, false, false},
		{`{}`, false, false},
		{`null`, false, false},
		{`{"appended":`, false, true},
	} {
		got, err := appendedOf([]byte(tc.text))
		if got != tc.appended || (err != nil) != tc.fails {
			t.Fatalf("appendedOf(%s) = %v, %v; want %v, failing %v", tc.text, got, err, tc.appended, tc.fails)
		}
	}
}
