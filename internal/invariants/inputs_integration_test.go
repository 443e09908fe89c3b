package invariants_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEveryInputSchemaMatchesItsGoInput: for every action bound with
// httpapi.Command or httpapi.Query, the input schema's members are exactly
// the Go input's JSON members, with compatible types. A member the schema
// takes but the struct lacks is silently dropped; a field the schema
// refuses can never be set.
func TestEveryInputSchemaMatchesItsGoInput(t *testing.T) {
	checked := 0
	for _, svc := range services(t) {
		for _, a := range svc.Actions {
			typ := a.InputType()
			if typ == nil {
				continue
			}
			checked++
			var schema struct {
				Properties map[string]map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(a.InputSchema, &schema); err != nil {
				t.Errorf("%s: input schema: %v", a.Name, err)
				continue
			}
			fields := jsonFields(typ)
			for name, prop := range schema.Properties {
				field, ok := fields[name]
				if !ok {
					t.Errorf("%s: the schema takes %q, which %s does not have (it would be dropped)", a.Name, name, typ)
					continue
				}
				if !compatible(prop, field) {
					t.Errorf("%s: member %q is %v in the schema but %s in %s", a.Name, name, prop["type"], field, typ)
				}
			}
			for name := range fields {
				if _, ok := schema.Properties[name]; !ok {
					t.Errorf("%s: %s has %q, which the schema never admits", a.Name, typ, name)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no action is bound with httpapi.Command or httpapi.Query")
	}
	t.Logf("%d actions checked against their Go inputs", checked)
}

// jsonFields are the members encoding/json reads into a struct, by name.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := map[string]reflect.Type{}
	if t.Kind() != reflect.Struct {
		return out
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

var timeType = reflect.TypeFor[time.Time]()

// compatible: the schema's type(s) can decode into the Go type.
func compatible(prop map[string]any, t reflect.Type) bool {
	var types []string
	switch v := prop["type"].(type) {
	case string:
		types = []string{v}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
	}
	if len(types) == 0 {
		return true // const, enum, anyOf: not a type to compare
	}
	nullable := t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Interface
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for _, typ := range types {
		ok := false
		switch typ {
		case "null":
			ok = nullable
		case "string":
			ok = t.Kind() == reflect.String || t == timeType
		case "integer":
			ok = t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64
		case "number":
			ok = t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64
		case "boolean":
			ok = t.Kind() == reflect.Bool
		case "array":
			ok = t.Kind() == reflect.Slice
		case "object":
			ok = slices.Contains([]reflect.Kind{reflect.Struct, reflect.Map}, t.Kind()) && t != timeType
		}
		if !ok && t.Kind() != reflect.Interface && t != reflect.TypeFor[json.RawMessage]() {
			return false
		}
	}
	return true
}
