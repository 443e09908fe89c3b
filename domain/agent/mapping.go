package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/platform/backend/domain/errs"
)

// The mapping language of step inputs: a step's input is a JSON template in
// which an object {"$from": "<JSON pointer>"} stands for the value at that
// pointer in the run's document, {"trigger": ..., "steps": [{"input": ...,
// "output": ..., "status": ...}, ...]}, and {"$from": ..., "default": v}
// for that value or v when the pointer names nothing. {"$literal": v}
// stands for v as it is (an object that would otherwise read as a
// reference). Nothing else is interpreted: no expressions, no functions, no
// code. A step refers only to the trigger and to steps before it.
const (
	refMember     = "$from"
	defaultMember = "default"
	literalMember = "$literal"
)

// Bounds of a template.
const (
	MaxTemplateBytes = 16 << 10
	maxTemplateDepth = 16
)

// CheckTemplate names what is wrong with a step's input template (at
// pointer, for the step at index): not a JSON object, too large or deep, a
// reference that is not a JSON pointer into the trigger or an earlier step.
func CheckTemplate(pointer string, template json.RawMessage, index int) []errs.Field {
	if len(bytes.TrimSpace(template)) == 0 {
		return nil
	}
	if len(template) > MaxTemplateBytes {
		return []errs.Field{{Pointer: pointer, Detail: fmt.Sprintf("must be at most %d bytes of JSON", MaxTemplateBytes)}}
	}
	v, err := decode(template)
	if err != nil {
		return []errs.Field{{Pointer: pointer, Detail: "must be JSON"}}
	}
	if _, ok := v.(map[string]any); !ok {
		return []errs.Field{{Pointer: pointer, Detail: "must be an object: the action's input members"}}
	}
	var fields []errs.Field
	var walk func(at string, v any, depth int)
	walk = func(at string, v any, depth int) {
		if depth > maxTemplateDepth {
			fields = append(fields, errs.Field{Pointer: at, Detail: fmt.Sprintf("nests deeper than %d levels", maxTemplateDepth)})
			return
		}
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v[refMember]; ok {
				fields = append(fields, checkRef(at, v, ref, index)...)
				return
			}
			if _, ok := v[literalMember]; ok {
				if len(v) != 1 {
					fields = append(fields, errs.Field{Pointer: at, Detail: "a $literal object has no other member"})
				}
				return
			}
			for k, m := range v {
				walk(errs.MemberPointer(at, k), m, depth+1)
			}
		case []any:
			for i, m := range v {
				walk(at+"/"+strconv.Itoa(i), m, depth+1)
			}
		}
	}
	walk(pointer, v, 0)
	return fields
}

func checkRef(at string, obj map[string]any, ref any, index int) []errs.Field {
	for k := range obj {
		if k != refMember && k != defaultMember {
			return []errs.Field{{Pointer: at, Detail: "a $from object has only the members $from and default"}}
		}
	}
	s, ok := ref.(string)
	if !ok {
		return []errs.Field{{Pointer: errs.MemberPointer(at, refMember), Detail: "must be a JSON pointer (a string)"}}
	}
	tokens, err := splitPointer(s)
	if err != nil {
		return []errs.Field{{Pointer: errs.MemberPointer(at, refMember), Detail: err.Error()}}
	}
	switch {
	case len(tokens) == 0:
		return []errs.Field{{Pointer: errs.MemberPointer(at, refMember), Detail: "must point into /trigger or /steps/<n>"}}
	case tokens[0] == "trigger":
		return nil
	case tokens[0] == "steps":
		if len(tokens) < 2 {
			return []errs.Field{{Pointer: errs.MemberPointer(at, refMember), Detail: "must name a step: /steps/<n>/..."}}
		}
		n, err := strconv.Atoi(tokens[1])
		if err != nil || n < 0 || strconv.Itoa(n) != tokens[1] {
			return []errs.Field{{Pointer: errs.MemberPointer(at, refMember), Detail: "a step is named by its index, /steps/<n>"}}
		}
		if n >= index {
			return []errs.Field{{Pointer: errs.MemberPointer(at, refMember), Detail: fmt.Sprintf("may refer only to earlier steps (0..%d)", index-1)}}
		}
		return nil
	}
	return []errs.Field{{Pointer: errs.MemberPointer(at, refMember), Detail: "must point into /trigger or /steps/<n>"}}
}

// MappingError is a reference a run's document could not answer.
type MappingError struct {
	Pointer string // the reference's place in the template
	From    string // the pointer that named nothing
}

func (e *MappingError) Error() string {
	return fmt.Sprintf("the input's %s refers to %s, which the run does not hold", e.Pointer, e.From)
}

// Resolve is a template with its references replaced by what they name in
// doc (the run's document). A reference that names nothing without a
// default is a *MappingError.
func Resolve(template json.RawMessage, doc any) (json.RawMessage, error) {
	if len(bytes.TrimSpace(template)) == 0 {
		return json.RawMessage(`{}`), nil
	}
	v, err := decode(template)
	if err != nil {
		return nil, &MappingError{Pointer: "", From: "(the template is not JSON)"}
	}
	var resolve func(at string, v any) (any, error)
	resolve = func(at string, v any) (any, error) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v[refMember]; ok {
				s, _ := ref.(string)
				got, found := Lookup(doc, s)
				if found {
					return got, nil
				}
				if def, ok := v[defaultMember]; ok {
					return def, nil
				}
				return nil, &MappingError{Pointer: at, From: s}
			}
			if lit, ok := v[literalMember]; ok && len(v) == 1 {
				return lit, nil
			}
			out := make(map[string]any, len(v))
			for k, m := range v {
				r, err := resolve(errs.MemberPointer(at, k), m)
				if err != nil {
					return nil, err
				}
				out[k] = r
			}
			return out, nil
		case []any:
			out := make([]any, len(v))
			for i, m := range v {
				r, err := resolve(at+"/"+strconv.Itoa(i), m)
				if err != nil {
					return nil, err
				}
				out[i] = r
			}
			return out, nil
		}
		return v, nil
	}
	out, err := resolve("", v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// Lookup is the value at a JSON pointer (RFC 6901) in a decoded document.
func Lookup(doc any, pointer string) (any, bool) {
	tokens, err := splitPointer(pointer)
	if err != nil {
		return nil, false
	}
	cur := doc
	for _, t := range tokens {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != t {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Decoded decodes JSON for Lookup (numbers kept as written).
func Decoded(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := decode(raw)
	if err != nil {
		return nil
	}
	return v
}

func decode(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

func splitPointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("a JSON pointer starts with /")
	}
	if len(p) > 512 {
		return nil, fmt.Errorf("a JSON pointer is at most 512 characters")
	}
	parts := strings.Split(p[1:], "/")
	for i, t := range parts {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(t, "~0", ""), "~1", ""), "~") {
			return nil, fmt.Errorf("~ is escaped as ~0 and / as ~1 in a JSON pointer")
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return parts, nil
}
