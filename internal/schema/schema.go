// Package schema is the one place JSON Schema is compiled and its failures are
// turned into JSON-pointer problems: HTTP input checks and notification
// contracts both use it.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/platform/backend/domain/errs"
)

// NewCompiler compiles draft 2020-12 with format assertions on: by default
// 2020-12 only annotates "format", which would let a bad date-time or URI through.
// Its patterns are compiled once a process (sharedRegexp).
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseRegexpEngine(sharedRegexp)
	return c
}

// Problem is one violation; Pointer is the JSON pointer of the failing member.
type Problem struct {
	Pointer string
	Message string
}

// Validate checks a JSON document and returns every problem (none when valid).
func Validate(s *jsonschema.Schema, doc []byte) []Problem {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return []Problem{{Message: "not valid JSON: " + err.Error()}}
	}
	return ValidateValue(s, v)
}

// ValidateValue checks a document already decoded into JSON values
// (JSONValue's), with the same problems as Validate on its encoding: a
// caller holding the value skips the encode and the parse.
func ValidateValue(s *jsonschema.Schema, v any) []Problem {
	err := s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	return problems(ve)
}

// JSONValue returns v as the JSON values its encoding decodes to (objects
// as map[string]any, arrays as []any, numbers as Go numbers, pointers
// followed), for ValidateValue, and false for anything whose encoding it
// does not know for certain (a type with its own MarshalJSON, a struct, a
// string that is not UTF-8, which encoding/json would alter, a non-finite
// number, which it refuses): encode and Validate those.
func JSONValue(v any) (any, bool) {
	switch v := v.(type) {
	case nil, bool, json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return v, true
	case string:
		return v, utf8.ValidString(v)
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case *string:
		if v == nil {
			return nil, true
		}
		return JSONValue(*v)
	case *int:
		if v == nil {
			return nil, true
		}
		return *v, true
	case *bool:
		if v == nil {
			return nil, true
		}
		return *v, true
	case []string:
		if v == nil {
			return nil, true
		}
		out := make([]any, len(v))
		for i, m := range v {
			if !utf8.ValidString(m) {
				return nil, false
			}
			out[i] = m
		}
		return out, true
	case []any:
		if v == nil {
			return nil, true
		}
		out := make([]any, len(v))
		for i, m := range v {
			var ok bool
			if out[i], ok = JSONValue(m); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		if v == nil {
			return nil, true
		}
		out := make(map[string]any, len(v))
		for k, m := range v {
			if !utf8.ValidString(k) {
				return nil, false
			}
			var ok bool
			if out[k], ok = JSONValue(m); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

var printer = message.NewPrinter(language.English)

// problems flattens the library's error tree into its leaves. The library
// reports a missing or an extra member at the enclosing object; we point at
// the member itself, because that is what a client has to add or remove.
func problems(root *jsonschema.ValidationError) []Problem {
	var out []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := Pointer(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				out = append(out, Problem{Pointer: errs.MemberPointer(at, m), Message: "required member is missing"})
			}
		case *kind.AdditionalProperties:
			for _, m := range k.Properties {
				out = append(out, Problem{Pointer: errs.MemberPointer(at, m), Message: "member is not allowed"})
			}
		default:
			out = append(out, Problem{Pointer: at, Message: k.LocalizedString(printer)})
		}
	}
	walk(root)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

// Pointer builds an RFC 6901 pointer from reference tokens.
func Pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteString(errs.MemberPointer("", t))
	}
	return sb.String()
}
