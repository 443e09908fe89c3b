package httpapi

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/platform/backend/internal/jsonenc/jsonenctest"
)

// encodeInput writes every input as json.Marshal does, byte for byte: an
// idempotency key's request fingerprint hashes the encoding, so a retry
// must hash as the first request did, whichever version encoded it.
func TestEncodeInputIsJSONMarshal(t *testing.T) {
	leaves := []any{nil, true, false, json.Number("0"), json.Number("-12"), json.Number("3.25"),
		json.Number("1e3"), json.Number("-0.5E-7"), json.Number(""), json.Number("01"), json.Number("1."), json.Number("abc"),
		int64(-42), int64(1 << 53), 1.5, 1e21, 0.000001}
	keys := append([]string{"a", "B", "incidentId", "z", "aa"}, jsonenctest.NastyStrings()...)
	for _, str := range jsonenctest.NastyStrings() {
		leaves = append(leaves, str)
	}
	rng := rand.New(rand.NewPCG(22, 2))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := rng.IntN(6); {
		case n == 0 && depth < 3:
			m := map[string]any{}
			for range rng.IntN(5) {
				m[keys[rng.IntN(len(keys))]] = gen(depth + 1)
			}
			return m
		case n == 1 && depth < 3:
			a := []any{}
			for range rng.IntN(4) {
				a = append(a, gen(depth+1))
			}
			return a
		default:
			return leaves[rng.IntN(len(leaves))]
		}
	}
	for range 20000 {
		doc := map[string]any{}
		for range rng.IntN(6) {
			doc[keys[rng.IntN(len(keys))]] = gen(0)
		}
		want, wantErr := json.Marshal(doc)
		got, err := encodeInput(doc)
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) {
			t.Fatalf("%#v:\n got %s (%v)\nwant %s (%v)", doc, got, err, want, wantErr)
		}
	}
}
