package gemini

import (
	"encoding/json"
	"strings"
)

// schemaKeys are the JSON Schema keywords Gemini's Schema object (an
// OpenAPI 3.0 subset) accepts; others ($schema, additionalProperties,
// $ref, const ...) make the API refuse the request, so they are dropped or
// rewritten.
var schemaKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"properties": true, "required": true, "items": true, "minItems": true, "maxItems": true,
	"minimum": true, "maximum": true, "minLength": true, "maxLength": true, "pattern": true,
	"minProperties": true, "maxProperties": true, "anyOf": true, "propertyOrdering": true,
	"default": true, "example": true,
}

// Schema rewrites a JSON Schema into Gemini's schema: types upper-case
// (STRING, OBJECT ...), a type list with "null" as nullable, const as a
// one-value enum, unknown keywords dropped. Properties keep their order
// through propertyOrdering, since Gemini otherwise orders them itself.
func Schema(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	out := convert(s)
	if order := propertyOrder(raw); len(order) > 0 {
		out["propertyOrdering"] = order
	}
	b, err := json.Marshal(out)
	if err != nil {
		return raw
	}
	return b
}

func convert(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		switch {
		case k == "const":
			out["enum"] = []any{v}
		case k == "type":
			switch t := v.(type) {
			case string:
				out["type"] = strings.ToUpper(t)
			case []any:
				for _, one := range t {
					str, _ := one.(string)
					if str == "null" {
						out["nullable"] = true
					} else if str != "" {
						out["type"] = strings.ToUpper(str)
					}
				}
			}
		case k == "properties":
			props := map[string]any{}
			if m, ok := v.(map[string]any); ok {
				for name, p := range m {
					if pm, ok := p.(map[string]any); ok {
						props[name] = convert(pm)
					}
				}
			}
			out["properties"] = props
		case k == "items":
			if m, ok := v.(map[string]any); ok {
				out["items"] = convert(m)
			}
		case k == "anyOf":
			var alts []any
			if list, ok := v.([]any); ok {
				for _, a := range list {
					if m, ok := a.(map[string]any); ok {
						alts = append(alts, convert(m))
					}
				}
			}
			out["anyOf"] = alts
		case schemaKeys[k]:
			out[k] = v
		}
	}
	return out
}

// propertyOrder reads the root's property names in document order.
func propertyOrder(raw json.RawMessage) []string {
	var root struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &root) != nil || len(root.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(root.Properties)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		name, _ := t.(string)
		names = append(names, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return names
}
