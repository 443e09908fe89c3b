package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// valueLeaves are the scalars the generator below nests: each kind
// AppendValue writes by hand (own: true), at its edges, and values it
// leaves to encoding/json, some of which json.Marshal refuses.
func valueLeaves() (leaves []any, own []bool) {
	s, n := "x<y", 7
	at := time.Date(2026, 5, 2, 10, 15, 0, 123456789, time.UTC)
	mine := []any{nil, true, false, &s, (*string)(nil), &n, (*int)(nil), 0, -42, int32(-5), int64(math.MinInt64), int64(1 << 53),
		uint64(math.MaxUint64), json.Number("0"), json.Number("-12"), json.Number("3.25"), json.Number("1e3"),
		json.Number("-0.5E-7"), json.Number(""), at, at.In(time.FixedZone("x", -5*3600-30*60)), time.Time{},
		time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("", 5*3600+30*60)),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -(23*3600+59*60))),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 23*3600+59*60+59)),
		[]string{"a", "b<"}, []string(nil), []string{}, []any(nil), map[string]any(nil)}
	for _, str := range nastyStrings() {
		mine = append(mine, str, []string{str})
	}
	others := []any{1.5, 1e21, 1e-7, 3.0, math.Copysign(0, -1), uint8(9), []int{1, 2}, map[string]string{"k": "<v>"},
		json.RawMessage(`{ "spaced" : "<x>" }`), struct {
			A int    `json:"a"`
			B string `json:"b"`
		}{1, "<"},
		// refused by json.Marshal
		json.Number("01"), json.Number("1."), json.Number("abc"), math.NaN(), math.Inf(-1), make(chan int),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -100*3600))}
	for _, v := range mine {
		leaves, own = append(leaves, v), append(own, true)
	}
	for _, v := range others {
		leaves, own = append(leaves, v), append(own, false)
	}
	return leaves, own
}

// AppendValue writes json.Marshal's bytes for every value it takes, and
// takes every value built of its kinds; AppendMarshal writes json.Marshal's
// bytes for any value and refuses exactly what json.Marshal refuses.
func TestAppendValueIsMarshal(t *testing.T) {
	leaves, own := valueLeaves()
	keys := append([]string{"a", "B", "incidentId", "aa", "z"}, nastyStrings()...)
	rng := rand.New(rand.NewPCG(22, 2))
	var gen func(depth int) (any, bool)
	gen = func(depth int) (any, bool) {
		mine := true
		switch n := rng.IntN(6); {
		case n == 0 && depth < 3:
			m := map[string]any{}
			for range rng.IntN(5) {
				v, ok := gen(depth + 1)
				m[keys[rng.IntN(len(keys))]], mine = v, mine && ok
			}
			return m, mine
		case n == 1 && depth < 3:
			a := []any{}
			for range rng.IntN(4) {
				v, ok := gen(depth + 1)
				a, mine = append(a, v), mine && ok
			}
			return a, mine
		default:
			i := rng.IntN(len(leaves))
			if rng.IntN(3) > 0 && !own[i] { // mostly documents AppendValue takes
				i = rng.IntN(len(leaves))
			}
			return leaves[i], own[i]
		}
	}
	prefix := []byte("prefix:")
	taken := 0
	for range 20000 {
		doc, mine := gen(0)
		want, wantErr := json.Marshal(doc)
		got, ok := AppendValue(prefix, doc)
		switch {
		case ok && (wantErr != nil || !bytes.Equal(got, append(prefix, want...))):
			t.Fatalf("AppendValue %#v:\n got %s\nwant %s (%v)", doc, got, want, wantErr)
		case !ok && !bytes.Equal(got, prefix):
			t.Fatalf("AppendValue %#v refused with %q written", doc, got)
		case mine && !ok:
			t.Fatalf("AppendValue refuses %#v", doc)
		case ok:
			taken++
		}
		got, err := AppendMarshal(prefix, doc)
		if (err == nil) != (wantErr == nil) || err == nil && !bytes.Equal(got, append(prefix, want...)) {
			t.Fatalf("AppendMarshal %#v:\n got %s (%v)\nwant %s (%v)", doc, got, err, want, wantErr)
		}
	}
	if taken < 5000 {
		t.Fatalf("AppendValue took %d documents of 20000", taken)
	}
}

// A value nested past maxDepth, or a map that holds itself, is left to
// encoding/json: the same bytes, its cycle error, no stack overflow.
func TestAppendValueDeepAndCyclic(t *testing.T) {
	var deep any = "leaf"
	for i := range 2 * maxDepth {
		if i%2 == 0 {
			deep = []any{deep, i}
		} else {
			deep = map[string]any{"d": deep}
		}
	}
	want, _ := json.Marshal(deep)
	if got, err := AppendMarshal(nil, deep); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("deep: %v\n got %s\nwant %s", err, got, want)
	}
	if _, ok := AppendValue(nil, deep); ok {
		t.Fatal("AppendValue takes a value nested past maxDepth")
	}
	cycle := map[string]any{}
	cycle["self"] = cycle
	if _, ok := AppendValue(nil, cycle); ok {
		t.Fatal("AppendValue takes a cycle")
	}
	if _, err := AppendMarshal(nil, cycle); err == nil {
		t.Fatal("AppendMarshal takes a cycle")
	}
}

// FuzzAppendValue: any JSON document, decoded as a request's body is
// (json.Number), encodes as json.Marshal encodes it.
func FuzzAppendValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,"<x>",null,true,{"b":-0.5e7}],"\u2028":"\ud800"}`, `[]`, `"s"`, `{"k":{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var doc any
		if dec.Decode(&doc) != nil {
			return
		}
		want, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := AppendValue(nil, doc); !ok || !bytes.Equal(got, want) {
			t.Fatalf("%s: got %s (%v), want %s", s, got, ok, want)
		}
	})
}

// The hot paths write into a buffer with room: nothing allocated, whatever
// the document's shape (the members sorted on the stack).
func TestAppendValueAllocatesNothing(t *testing.T) {
	doc := benchDoc()
	buf := make([]byte, 0, 4096)
	for name, f := range map[string]func(){
		"AppendValue":   func() { buf, _ = AppendValue(buf[:0], doc) },
		"AppendMarshal": func() { buf, _ = AppendMarshal(buf[:0], doc) },
		"AppendTime":    func() { buf, _ = AppendTime(buf[:0], time.Now()) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations", name, n)
		}
	}
}

// benchDoc is a notification payload's shape: ids, a title, counts, a
// time, a nested object and a list.
func benchDoc() map[string]any {
	host := "api.example.com"
	return map[string]any{"incident_id": "0192f5a2-7c1e-7d3a-9b1e-4f2a6c8d0e11", "title": "Errors <on> checkout", "revision": 2,
		"status": "identified", "severity": "major", "component_host": &host, "resolved": false, "count": int64(12),
		"occurred_at": time.Date(2026, 5, 2, 10, 15, 0, 123456789, time.UTC), "message": mixed200,
		"impact":     map[string]any{"regions": []string{"eu-west", "us-east"}, "share": json.Number("0.25")},
		"components": []any{"api", "web", nil}}
}

func BenchmarkAppendValue(b *testing.B) {
	doc := benchDoc()
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendValue(buf[:0], doc)
	}
}
