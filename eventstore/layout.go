package eventstore

import (
	"bytes"
	"strconv"
	"time"
)

// Layout reads JSON laid out as its writer always lays it out, member by
// member instead of by reflection: the event envelope as encode (and
// json.Marshal) writes it (decodeEnvelope), and a context's most frequent
// payload as PostgreSQL's text of its jsonb (the gateway's usage event,
// projections/gateway). The caller reads the keys and separators as
// literals; strings are printable ASCII without escapes, integers and
// booleans as JSON writes them. Any surprise clears OK: the caller then
// reads the bytes with json.Unmarshal, which gives what a Layout read gives
// where both read, and reads (or refuses) the rest.
type Layout struct {
	b  []byte
	i  int
	ok bool
}

// NewLayout reads b from its start.
func NewLayout(b []byte) *Layout { return &Layout{b: b, ok: true} }

// OK reports whether everything read so far was as expected.
func (r *Layout) OK() bool { return r.ok }

// Done reports whether everything was as expected and nothing is left.
func (r *Layout) Done() bool { return r.ok && r.i == len(r.b) }

// Lit reads s exactly.
func (r *Layout) Lit(s string) {
	if r.ok && bytes.HasPrefix(r.b[r.i:], []byte(s)) {
		r.i += len(s)
		return
	}
	r.ok = false
}

// Has reports whether s comes next (an optional member's name), reading
// nothing.
func (r *Layout) Has(s string) bool { return r.ok && bytes.HasPrefix(r.b[r.i:], []byte(s)) }

// Str reads a string of printable ASCII without escapes.
func (r *Layout) Str() string {
	if !r.ok || r.i >= len(r.b) || r.b[r.i] != '"' {
		r.ok = false
		return ""
	}
	for j := r.i + 1; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			s := string(r.b[r.i+1 : j])
			r.i = j + 1
			return s
		case c == '\\' || c < 0x20 || c >= 0x7f:
			r.ok = false
			return ""
		}
	}
	r.ok = false
	return ""
}

// Int reads an integer as JSON writes it (no leading zero, no fraction or
// exponent), of at most 18 digits.
func (r *Layout) Int() int64 {
	if !r.ok {
		return 0
	}
	j := r.i
	if j < len(r.b) && r.b[j] == '-' {
		j++
	}
	start := j
	for j < len(r.b) && r.b[j] >= '0' && r.b[j] <= '9' {
		j++
	}
	digits := j - start
	if digits == 0 || digits > 18 || (digits > 1 && r.b[start] == '0') {
		r.ok = false
		return 0
	}
	n, err := strconv.ParseInt(string(r.b[r.i:j]), 10, 64)
	if err != nil {
		r.ok = false
		return 0
	}
	r.i = j
	return n
}

// Bool reads true or false.
func (r *Layout) Bool() bool {
	switch {
	case r.Has("true"):
		r.i += len("true")
		return true
	case r.Has("false"):
		r.i += len("false")
	default:
		r.ok = false
	}
	return false
}

// Time reads a time as time.Time's UnmarshalJSON does.
func (r *Layout) Time() time.Time {
	start := r.i
	r.Str()
	var t time.Time
	if r.ok && t.UnmarshalJSON(r.b[start:r.i]) != nil {
		r.ok = false
	}
	return t
}
