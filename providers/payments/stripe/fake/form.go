package fake

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// maxIndex bounds an array index in a form key: a fake must not allocate
// what a typo asks for.
const maxIndex = 10000

// decodeForm reads a form body or query string back into nested params the
// way Stripe (Rack) does: each key is unescaped, then split at its
// brackets; a numeric or empty segment indexes an array, any other names a
// member. Leaves are strings, as on the wire.
func decodeForm(raw string) (map[string]any, error) {
	root := map[string]any{}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, errors.New("undecodable key")
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			return nil, errors.New("undecodable value of " + key)
		}
		segs, err := splitKey(key)
		if err != nil {
			return nil, err
		}
		if err := insert(root, segs, value); err != nil {
			return nil, err
		}
	}
	return finishObject(root), nil
}

// splitKey turns "line_items[0][price]" into line_items, 0, price.
func splitKey(key string) ([]string, error) {
	name, rest, nested := strings.Cut(key, "[")
	if name == "" {
		return nil, errors.New("empty key")
	}
	segs := []string{name}
	if !nested {
		return segs, nil
	}
	rest = "[" + rest
	for rest != "" {
		if rest[0] != '[' {
			return nil, errors.New("malformed key " + key)
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return nil, errors.New("malformed key " + key)
		}
		segs = append(segs, rest[1:end])
		rest = rest[end+1:]
	}
	return segs, nil
}

// array is an array being built: index -> element.
type array map[int]any

func isIndex(seg string) bool {
	if seg == "" {
		return true
	}
	n, err := strconv.Atoi(seg)
	return err == nil && n >= 0 && n <= maxIndex && strconv.Itoa(n) == seg
}

func insert(root map[string]any, segs []string, value string) error {
	var cur any = root
	for i, seg := range segs {
		last := i == len(segs)-1
		var fresh any
		if !last {
			if isIndex(segs[i+1]) {
				fresh = array{}
			} else {
				fresh = map[string]any{}
			}
		}
		switch c := cur.(type) {
		case map[string]any:
			if seg == "" {
				return errors.New("empty member name")
			}
			existing, ok := c[seg]
			if last {
				if ok && !isLeaf(existing) {
					return errors.New("value and object under one key: " + seg)
				}
				c[seg] = value
				return nil
			}
			if !ok {
				c[seg] = fresh
				existing = fresh
			} else if !sameShape(existing, fresh) {
				return errors.New("conflicting shapes under one key: " + seg)
			}
			cur = existing
		case array:
			idx := len(c)
			if seg != "" {
				idx, _ = strconv.Atoi(seg)
			} else if m, ok := c[len(c)-1].(map[string]any); ok && !last && len(segs) == i+2 {
				// Rack's rule for a[][x]=1&a[][y]=2: fill the last object
				// until one of its members repeats.
				if _, taken := m[segs[i+1]]; !taken {
					idx = len(c) - 1
				}
			}
			existing, ok := c[idx]
			if last {
				if ok && !isLeaf(existing) {
					return errors.New("value and object at one index")
				}
				c[idx] = value
				return nil
			}
			if !ok {
				c[idx] = fresh
				existing = fresh
			} else if !sameShape(existing, fresh) {
				return errors.New("conflicting shapes at one index")
			}
			cur = existing
		}
	}
	return nil
}

func isLeaf(v any) bool {
	_, ok := v.(string)
	return ok
}

func sameShape(a, b any) bool {
	switch a.(type) {
	case map[string]any:
		_, ok := b.(map[string]any)
		return ok
	case array:
		_, ok := b.(array)
		return ok
	}
	return false
}

// finish turns the arrays being built into []any in index order (a gap is
// nil).
func finish(v any) any {
	switch c := v.(type) {
	case map[string]any:
		return finishObject(c)
	case array:
		idx := make([]int, 0, len(c))
		for i := range c {
			idx = append(idx, i)
		}
		slices.Sort(idx)
		out := make([]any, 0, len(c))
		for _, i := range idx {
			for len(out) < i {
				out = append(out, nil)
			}
			out = append(out, finish(c[i]))
		}
		return out
	}
	return v
}

func finishObject(m map[string]any) map[string]any {
	for k, e := range m {
		m[k] = finish(e)
	}
	return m
}
