package jsonenc

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AppendValue appends v as json.Marshal writes it, without its reflection,
// for the values the hand-written encoders meet (a decoded request, a
// notification's payload, a projection's row): nil, strings and *string,
// booleans, integers and *int, json.Number, time.Time, and []string, []any
// and map[string]any of these (members in the order of their names). ok is
// false, and b returned as it came, for any other value anywhere in v (a
// float, a struct, a type with its own MarshalJSON) and for one of these
// json.Marshal refuses (a time past year 9999, an invalid json.Number): the
// caller writes v with encoding/json.
func AppendValue(b []byte, v any) ([]byte, bool) {
	out, err := appendValue(b, v, false, 0)
	if err != nil {
		return b, false
	}
	return out, true
}

// AppendMarshal appends v as json.Marshal writes it: AppendValue's values by
// hand, any other (v itself, or a member or an element of v) as json.Marshal
// writes it, in its place. err is json.Marshal's for such a value; b is then
// partly written.
func AppendMarshal(b []byte, v any) ([]byte, error) {
	return appendValue(b, v, true, 0)
}

// maxDepth bounds the recursion: a value nested deeper (or a map that holds
// itself) is left to encoding/json, which detects cycles.
const maxDepth = 32

var errOther = errors.New("jsonenc: a value written by encoding/json")

// appendValue writes v, or hands it to json.Marshal (marshal) or refuses it
// (errOther). One function recursing into itself, arrays and objects
// inline: split into mutually recursive functions, the compiler's escape
// analysis lets b leak to the heap, and a caller's buffer with it.
func appendValue(b []byte, v any, marshal bool, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return AppendString(b, x), nil
	case *string:
		if x == nil {
			return append(b, "null"...), nil
		}
		return AppendString(b, *x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case *int:
		if x == nil {
			return append(b, "null"...), nil
		}
		return strconv.AppendInt(b, int64(*x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case json.Number:
		if x == "" {
			return append(b, '0'), nil // encoding/json's zero Number
		}
		if validNumber(string(x)) {
			return append(b, x...), nil
		}
	case time.Time:
		if out, ok := AppendTime(b, x); ok {
			return out, nil
		}
	case []string:
		return AppendStrings(b, x), nil
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		if depth < maxDepth {
			b = append(b, '[')
			for i, v := range x {
				if i > 0 {
					b = append(b, ',')
				}
				var err error
				if b, err = appendValue(b, v, marshal, depth+1); err != nil {
					return b, err
				}
			}
			return append(b, ']'), nil
		}
	case map[string]any:
		if x == nil {
			return append(b, "null"...), nil
		}
		if depth < maxDepth {
			var buf [24]member
			members := buf[:0]
			for k, v := range x {
				members = append(members, member{k, v})
			}
			slices.SortFunc(members, func(x, y member) int { return strings.Compare(x.name, y.name) })
			b = append(b, '{')
			for i, m := range members {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(AppendString(b, m.name), ':')
				var err error
				if b, err = appendValue(b, m.value, marshal, depth+1); err != nil {
					return b, err
				}
			}
			return append(b, '}'), nil
		}
	}
	if !marshal {
		return b, errOther
	}
	raw, err := json.Marshal(v)
	return append(b, raw...), err
}

type member struct {
	name  string
	value any
}

// AppendStrings appends s as json.Marshal writes a []string (nil as null).
func AppendStrings(b []byte, s []string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, m := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, m)
	}
	return append(b, ']')
}

// AppendTime appends t as time.Time's MarshalJSON writes it (RFC 3339 with
// nanoseconds, quoted), without its allocation. ok is false, and b returned
// as it came, for what MarshalJSON refuses: a year not 4 digits wide, an
// offset of 24 hours or more.
func AppendTime(b []byte, t time.Time) ([]byte, bool) {
	n0 := len(b)
	out := append(b, '"')
	out = t.AppendFormat(out, time.RFC3339Nano)
	if out[n0+5] != '-' {
		return b, false
	}
	if out[len(out)-1] != 'Z' {
		if c := out[len(out)-6]; '0' <= c && c <= '9' || 10*(out[len(out)-5]-'0')+(out[len(out)-4]-'0') >= 24 {
			return b, false
		}
	}
	return append(out, '"'), true
}

// validNumber reports whether s is a JSON number (RFC 8259's grammar), what
// json.Marshal checks before writing a json.Number as it is.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}
