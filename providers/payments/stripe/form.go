package stripe

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// maxFormDepth bounds nesting: Stripe's deepest parameters are a few levels
// down, so anything deeper (or a map that contains itself) is a caller's
// bug, refused rather than recursed into.
const maxFormDepth = 16

// encodeForm renders params as Stripe reads application/x-www-form-urlencoded
// bodies and query strings (see the package comment for the rules).
//
// Brackets are structure: Stripe unescapes a key before it splits it at
// the brackets, so a member name holding "[" or "]" cannot be sent as one
// name and is refused. Each name is escaped on its own and the brackets
// between names are written as they are, as Stripe's own libraries do.
func encodeForm(params map[string]any) (string, error) {
	var f form
	if err := f.object("", params, 0); err != nil {
		return "", err
	}
	return f.b.String(), nil
}

type form struct{ b strings.Builder }

func (f *form) pair(key, value string) {
	if f.b.Len() > 0 {
		f.b.WriteByte('&')
	}
	f.b.WriteString(key)
	f.b.WriteByte('=')
	f.b.WriteString(url.QueryEscape(value))
}

// child is the key of member name under prefix ("" at the top).
func child(prefix, name string) string {
	if prefix == "" {
		return url.QueryEscape(name)
	}
	return prefix + "[" + url.QueryEscape(name) + "]"
}

func (f *form) object(prefix string, m map[string]any, depth int) error {
	if depth > maxFormDepth {
		return fmt.Errorf("%s: nested too deep", prefix)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "[]") {
			return fmt.Errorf("%s: member name %q is empty or holds a bracket", orTop(prefix), k)
		}
		if err := f.value(child(prefix, k), m[k], depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (f *form) array(key string, n int, at func(int) any, depth int) error {
	if depth > maxFormDepth {
		return fmt.Errorf("%s: nested too deep", key)
	}
	if n == 0 {
		// An empty value clears a list on Stripe's side, which is what an
		// explicitly empty array means.
		f.pair(key, "")
		return nil
	}
	for i := range n {
		if err := f.value(key+"["+strconv.Itoa(i)+"]", at(i), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (f *form) value(key string, v any, depth int) error {
	switch v := v.(type) {
	case nil:
		f.pair(key, "") // Stripe's way to unset a member
	case string:
		f.pair(key, v)
	case bool:
		f.pair(key, strconv.FormatBool(v))
	case json.Number:
		s, err := plainNumber(v)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		f.pair(key, s)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: not a finite number", key)
		}
		f.pair(key, strconv.FormatFloat(v, 'f', -1, 64))
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%s: not a finite number", key)
		}
		f.pair(key, strconv.FormatFloat(float64(v), 'f', -1, 32))
	case int:
		f.pair(key, strconv.FormatInt(int64(v), 10))
	case int32:
		f.pair(key, strconv.FormatInt(int64(v), 10))
	case int64:
		f.pair(key, strconv.FormatInt(v, 10))
	case uint:
		f.pair(key, strconv.FormatUint(uint64(v), 10))
	case uint32:
		f.pair(key, strconv.FormatUint(uint64(v), 10))
	case uint64:
		f.pair(key, strconv.FormatUint(v, 10))
	case map[string]any:
		return f.object(key, v, depth)
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		return f.object(key, m, depth)
	case []any:
		return f.array(key, len(v), func(i int) any { return v[i] }, depth)
	case []string:
		return f.array(key, len(v), func(i int) any { return v[i] }, depth)
	case []map[string]any:
		return f.array(key, len(v), func(i int) any { return v[i] }, depth)
	default:
		return fmt.Errorf("%s: unsupported value type %T", key, v)
	}
	return nil
}

// plainNumber writes a JSON number without an exponent (Stripe reads
// integers and decimals, not 1e3). Without an exponent the literal is kept
// as it is, so an integer beyond float64's exact range keeps its digits.
func plainNumber(n json.Number) (string, error) {
	s := n.String()
	if !isJSONNumber(s) {
		return "", errors.New("not a number")
	}
	if !strings.ContainsAny(s, "eE") {
		return s, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) {
		return "", errors.New("not a finite number")
	}
	return strconv.FormatFloat(x, 'f', -1, 64), nil
}

// isJSONNumber holds for a JSON number literal and nothing else (no NaN,
// hex, underscores, surrounding space or quoted string).
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) &&
		strings.TrimSpace(s) == s && json.Valid([]byte(s))
}

func orTop(prefix string) string {
	if prefix == "" {
		return "params"
	}
	return prefix
}
