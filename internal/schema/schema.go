// Package schema is the one place JSON Schema is compiled and its failures are
// turned into JSON-pointer problems: HTTP input checks and notification
// contracts both use it.
package schema

import (
	"bytes"
	"errors"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// NewCompiler compiles draft 2020-12 with format assertions on: by default
// 2020-12 only annotates "format", which would let a bad date-time or URI through.
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
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
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	return problems(ve)
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
				out = append(out, Problem{Pointer: at + "/" + escape(m), Message: "required member is missing"})
			}
		case *kind.AdditionalProperties:
			for _, m := range k.Properties {
				out = append(out, Problem{Pointer: at + "/" + escape(m), Message: "member is not allowed"})
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
		sb.WriteString("/" + escape(t))
	}
	return sb.String()
}

func escape(token string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
}
