package contracts

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every contract compiles to a fast check: a schema keyword compileFast
// does not know would silently send that contract to the generic
// validator alone (correct, but the projection's cost comes back).
func TestFastValidatorCoversEveryContract(t *testing.T) {
	r := load(t)
	for _, typ := range r.Types() {
		if _, err := compileFast(r.raw[typ]); err != nil || r.contracts[typ].fast == nil {
			t.Errorf("%s: no fast check (%v): teach compileFast the keyword, or accept the generic validator's cost for it", typ, err)
		}
	}
	if _, err := compileFast([]byte(`{"$schema":"` + draft2020 + `","type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`)); err == nil {
		t.Error("a keyword it does not check (pattern) must refuse the schema, not be ignored")
	}
}

// probe is a member value tried on every member of every contract;
// deferred ones are values the fast check leaves to the generic validator
// although it accepts them (only its soundness is required for those).
type probe struct {
	v        any
	deferred bool
}

func strp(s string) *string { return &s }
func intp(n int) *int       { return &n }

var probes = []probe{
	{v: ""}, {v: "x"}, {v: "é"}, {v: "Incident update: <b>&</b>"}, {v: strp("x")}, {v: strp("")}, {v: (*string)(nil)},
	{v: nil}, {v: true}, {v: false}, {v: (*bool)(nil)},
	{v: 0}, {v: 1}, {v: 2}, {v: 3}, {v: 51}, {v: -1}, {v: 199}, {v: 200}, {v: 399}, {v: 400}, {v: 500}, {v: intp(2)}, {v: (*int)(nil)},
	{v: int64(math.MaxInt64)}, {v: int64(math.MinInt64)}, {v: int8(2)}, {v: uint16(2)}, {v: uint64(7)},
	{v: 0.0}, {v: 2.0}, {v: 2.5}, {v: -1.0}, {v: 1e300}, {v: -0.5},
	{v: map[string]any{}}, {v: map[string]any{"job_id": "j"}}, {v: []string{"a"}}, {v: []string{}}, {v: []any{"a", 1}}, {v: []any(nil)},
	{v: "2026-05-02T10:15:00Z"}, {v: "2026-05-02T10:15:00.123456789Z"}, {v: "2026-05-02T10:15:00+02:00"}, {v: "2026-05-02t10:15:00-23:59"},
	{v: "2024-02-29T00:00:00Z"}, {v: "2000-02-29T00:00:00Z"}, {v: "1900-02-29T00:00:00Z"}, {v: "2026-02-29T00:00:00Z"}, {v: "2026-04-31T00:00:00Z"},
	{v: "2026-13-01T00:00:00Z"}, {v: "2026-00-01T00:00:00Z"}, {v: "2026-05-00T00:00:00Z"}, {v: "2026-05-02T24:00:00Z"}, {v: "2026-05-02T10:60:00Z"},
	{v: "2026-05-02T10:15:00"}, {v: "2026-05-02T10:15:00.Z"}, {v: "2026-05-02T10:15:00+2:00"}, {v: "2026-05-02T10:15:00+24:00"},
	{v: "2026-05-02T10:15:00+01:60"}, {v: "2026-05-02 10:15:00Z"}, {v: "2026-05-02T10:15:00ZZ"}, {v: "yesterday"}, {v: "2026-05-10"},
	{v: "https://example.com/usage?x=1"}, {v: "http://localhost:8080/a"}, {v: "mailto:a@b.c"}, {v: "/relative"}, {v: "studio quota"},
	{v: "http://[::1"}, {v: "https://exa mple.com"}, {v: "%zz"}, {v: "http://[fe80::1%25en0]/"}, {v: "2026-05-02T10:15:60Z"},
	// Accepted by the library, left to it by the fast check.
	{v: "2026-05-02T23:59:60Z", deferred: true}, {v: "2026-05-02T10:15:00+0:00", deferred: true}, {v: "http://[::1]:80/x", deferred: true},
	{v: json.Number("2"), deferred: true}, {v: "bad \xff byte", deferred: true}, {v: uint64(math.MaxUint64), deferred: true},
	{v: time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC), deferred: true}, {v: struct{ A int }{1}, deferred: true},
	{v: []any{struct{}{}}, deferred: true}, {v: map[string]any{"bad \xff": 1}, deferred: true},
	// Never valid: the payload does not encode.
	{v: make(chan int)}, {v: math.NaN()}, {v: []any{math.Inf(1)}},
}

// TestFastAgreesWithGeneric runs the projection's check (ValidateValue: the
// fast check, the generic validator when it is not sure) and the generic
// validator alone (validateValue) on the same payloads of every contract:
// its example, the example with each member removed, set to every probe
// value and each of the contract's const and enum strings, an extra
// member, the members of a nested object likewise, and a wrong key. The
// verdicts and the problems must be the same; and the fast check itself
// must never find surely valid a payload the generic validator refuses,
// and must decide (not defer) every valid payload of the values mappers
// build.
func TestFastAgreesWithGeneric(t *testing.T) {
	r := load(t)
	for _, typ := range r.Types() {
		t.Run(typ, func(t *testing.T) {
			c := r.contracts[typ]
			ex := readExample(t, typ)
			values := append(slices.Clone(probes), schemaStrings(t, r.raw[typ])...)
			valid, invalid := 0, 0
			try := func(what, key string, payload map[string]any, deferred bool) {
				t.Helper()
				generic := r.validateValue(typ, key, payload)
				if got := r.ValidateValue(typ, key, payload); fmt.Sprint(got) != fmt.Sprint(generic) {
					t.Errorf("%s: the projection's check says %v, the generic validator %v", what, got, generic)
				}
				fast := c.fast != nil && c.fast.valid(payload) && c.IdempotencyKeyPattern.MatchString(key)
				switch {
				case fast && generic != nil:
					t.Errorf("%s: the fast check passes a payload the generic validator refuses: %v", what, generic)
				case !fast && generic == nil && !deferred:
					t.Errorf("%s: the fast check is not sure of a valid payload", what)
				}
				if generic == nil {
					valid++
				} else {
					invalid++
				}
			}
			mutate := func(at string, obj map[string]any, root map[string]any) {
				for _, name := range append(slices.Sorted(maps.Keys(obj)), "zz_extra") {
					old, had := obj[name]
					delete(obj, name)
					if had {
						try(at+"/"+name+" removed", ex.Key, root, false)
					}
					for _, p := range values {
						obj[name] = p.v
						try(fmt.Sprintf("%s/%s = %#v", at, name, p.v), ex.Key, root, p.deferred)
					}
					delete(obj, name)
					if had {
						obj[name] = old
					}
				}
			}
			for _, payload := range []map[string]any{ex.Payload, goTyped(ex.Payload)} {
				try("example", ex.Key, payload, false)
				try("wrong key", "nope:"+ex.Key, payload, false)
				mutate("", payload, payload)
				for _, name := range slices.Sorted(maps.Keys(payload)) {
					if nested, ok := payload[name].(map[string]any); ok {
						mutate("/"+name, nested, payload)
					}
				}
			}
			if valid < 10 || invalid < 10 {
				t.Errorf("only %d valid and %d invalid payloads tried", valid, invalid)
			}
		})
	}
}

// goTyped is a payload as a mapper builds it: whole numbers as ints,
// strings through pointers.
func goTyped(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case float64:
			out[k] = int(v)
		case string:
			out[k] = &v
		case map[string]any:
			out[k] = goTyped(v)
		default:
			out[k] = v
		}
	}
	return out
}

// schemaStrings are the const and enum strings of a schema, as probes.
func schemaStrings(t *testing.T, raw []byte) []probe {
	var out []probe
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, m := range v {
				if k == "const" {
					out = append(out, probe{v: m})
				}
				if k == "enum" {
					for _, e := range m.([]any) {
						out = append(out, probe{v: e})
					}
				}
				if k != "x-contract" && !strings.HasPrefix(k, "$") {
					walk(m)
				}
			}
		}
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc)
	return out
}
