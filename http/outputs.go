package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
)

// Output schemas. Every action declares what a success answers, and the
// OpenAPI documents carry it, so a client (and the fuzzing gate) can hold the
// server to it. Where a handler answers a Go struct, the schema is derived
// from the type by outputOf: its JSON members, all required except omitempty
// ones, their types, date-time for time.Time, null allowed for pointers that
// are not omitempty. Members the type cannot say more about (enums, formats,
// a slice that may be nil) are refined with options. Objects are closed
// (additionalProperties false): a member added to an answer is a decision,
// made in the schema too. Tests validate every 2xx answer of the integration
// suite against these (Deps.CheckOutput), and schemathesis does over HTTP.

// OutputOption refines the schema of one member, named by a dotted path from the
// answer's root; "[]" steps into array items ("results[].status").
type OutputOption struct {
	path   string
	schema json.RawMessage
	merge  bool
}

// WithSchema replaces the schema at path.
func WithSchema(path, schema string) OutputOption {
	return OutputOption{path: path, schema: json.RawMessage(schema)}
}

// EnumOf restricts the string at path to values.
func EnumOf(path string, values ...string) OutputOption {
	raw, _ := json.Marshal(map[string]any{"enum": values})
	return OutputOption{path: path, schema: raw, merge: true}
}

// Nullable lets the member at path be null (a nil slice or map in Go).
func Nullable(path string) OutputOption {
	return OutputOption{path: path, schema: json.RawMessage(`{"x-nullable":true}`), merge: true}
}

// FormatOf sets the format of the string at path (uri, uuid, email).
func FormatOf(path, format string) OutputOption {
	raw, _ := json.Marshal(map[string]any{"format": format})
	return OutputOption{path: path, schema: raw, merge: true}
}

// Optional makes the member at path not required (a member a handler leaves
// out sometimes, though the type does not say omitempty).
func Optional(path string) OutputOption {
	return OutputOption{path: path, schema: json.RawMessage(`{"x-optional":true}`), merge: true}
}

// OpenObject lets the object at path carry members beyond its properties
// ("" is the root).
func OpenObject(path string) OutputOption {
	return OutputOption{path: path, schema: json.RawMessage(`{"additionalProperties":true}`), merge: true}
}

// OutputOf is the output schema of answers of v's type (v may be a zero
// value), refined by opts. It panics on an option naming no member: a
// descriptor that does not build is a programming error found at start-up.
func OutputOf(v any, opts ...OutputOption) json.RawMessage {
	s := typeSchema(reflect.TypeOf(v), map[reflect.Type]bool{})
	for _, o := range opts {
		if err := refine(s, strings.Split(strings.ReplaceAll(o.path, "[]", ".[]"), "."), o); err != nil {
			panic(fmt.Sprintf("outputOf %T: %s: %v", v, o.path, err))
		}
	}
	finish(s)
	out, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return out
}

// ObjectOf is a closed object schema whose members are all required except
// those named in optional.
func ObjectOf(props map[string]json.RawMessage, optional ...string) json.RawMessage {
	req := []string{}
	for k := range props {
		if !slices.Contains(optional, k) {
			req = append(req, k)
		}
	}
	sort.Strings(req)
	out, _ := json.Marshal(map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props})
	return out
}

// ArrayOf is an array of items.
func ArrayOf(items json.RawMessage) json.RawMessage {
	return json.RawMessage(`{"type":"array","items":` + string(items) + `}`)
}

// Raw is a literal schema.
func Raw(s string) json.RawMessage { return json.RawMessage(s) }

// Common member schemas of answers.
const (
	StringOutput = `{"type":"string"}`
	intOut       = `{"type":"integer"}`
	BoolOutput   = `{"type":"boolean"}`
	dateTimeOut  = `{"type":"string","format":"date-time"}`
)

var timeType = reflect.TypeOf(time.Time{})
var rawMessageType = reflect.TypeOf(json.RawMessage{})

// typeSchema describes t; open are the struct types being described
// around it: a type met inside itself (a group layer's children) is any
// object there, so a recursive type has a finite schema (refine the inner
// levels with WithSchema where they matter).
func typeSchema(t reflect.Type, open map[reflect.Type]bool) map[string]any {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	var s map[string]any
	switch {
	case t == timeType:
		s = map[string]any{"type": "string", "format": "date-time"}
	case t == rawMessageType:
		s = map[string]any{} // any JSON value
	case t.Kind() == reflect.String:
		s = map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		s = map[string]any{"type": "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		s = map[string]any{"type": "number"}
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		s = map[string]any{"type": "array", "items": typeSchema(t.Elem(), open)}
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		s = map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem(), open)}
	case t.Kind() == reflect.Interface:
		s = map[string]any{}
	case t.Kind() == reflect.Struct && open[t]:
		s = map[string]any{"type": "object"}
	case t.Kind() == reflect.Struct:
		open[t] = true
		props, req := map[string]any{}, []string{}
		structMembers(t, props, &req, open)
		delete(open, t)
		s = map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
	default:
		panic("outputOf: no schema for " + t.String())
	}
	if nullable {
		s["x-nullable"] = true
	}
	return s
}

// structMembers walks a struct's JSON members as encoding/json writes them
// (embedded structs inline, "-" skipped, omitempty optional).
func structMembers(t reflect.Type, props map[string]any, req *[]string, open map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				structMembers(ft, props, req, open)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := typeSchema(f.Type, open)
		omit := strings.Contains(opts, "omitempty")
		if omit {
			// An omitempty pointer is left out when nil, never null.
			delete(s, "x-nullable")
		}
		props[name] = s
		// An outer member shadows an embedded one of the same name.
		*req = without(*req, name)
		if !omit {
			*req = append(*req, name)
		}
	}
}

func refine(s map[string]any, path []string, o OutputOption) error {
	if len(path) == 1 && path[0] == "" {
		return apply(s, o)
	}
	cur := s
	for i, step := range path {
		var next map[string]any
		if step == "[]" {
			next, _ = cur["items"].(map[string]any)
		} else if props, ok := cur["properties"].(map[string]any); ok {
			next, _ = props[step].(map[string]any)
		}
		if next == nil {
			return fmt.Errorf("no member %q", strings.Join(path[:i+1], "."))
		}
		if i == len(path)-1 {
			if string(o.schema) == `{"x-optional":true}` {
				cur["required"] = without(toStrings(cur["required"]), step)
				return nil
			}
			if !o.merge {
				var repl map[string]any
				if err := json.Unmarshal(o.schema, &repl); err != nil {
					return err
				}
				if step == "[]" {
					cur["items"] = repl
				} else {
					cur["properties"].(map[string]any)[step] = repl
				}
				return nil
			}
			return apply(next, o)
		}
		cur = next
	}
	return nil
}

func apply(s map[string]any, o OutputOption) error {
	var m map[string]any
	if err := json.Unmarshal(o.schema, &m); err != nil {
		return err
	}
	for k, v := range m {
		s[k] = v
	}
	return nil
}

// finish turns the x-nullable marks into type unions.
func finish(s map[string]any) {
	if s["x-nullable"] == true {
		delete(s, "x-nullable")
		if t, ok := s["type"].(string); ok {
			s["type"] = []string{t, "null"}
		}
		if e, ok := s["enum"].([]any); ok {
			s["enum"] = append(e, nil)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if m, ok := p.(map[string]any); ok {
				finish(m)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if m, ok := s[k].(map[string]any); ok {
			finish(m)
		}
	}
}

func toStrings(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			out = append(out, x.(string))
		}
		return out
	}
	return nil
}

func without(list []string, s string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}
