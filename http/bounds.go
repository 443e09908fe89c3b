package httpapi

import (
	"encoding/json"

	"github.com/platform/backend/domain/text"
)

// Schemas of string members. Every string member of every input schema is
// bounded (maxLength, or enum, const, format uuid) and every free-text member
// refuses control characters; TestEveryInputStringIsBounded walks every
// service's descriptors to keep it so. The limits live in domain/text, where
// the domain's own checks read them too.

// LineSchema is a single-line text member (titles, names, ids, emails):
// minLength..maxLength characters, no control character.
func LineSchema(minLength, maxLength int) string {
	return StringSchema(minLength, maxLength, text.LinePattern, nil)
}

// TextSchema is a multi-line text member (messages): tab and line breaks
// allowed, no other control character.
func TextSchema(minLength, maxLength int) string {
	return StringSchema(minLength, maxLength, text.MultiLinePattern, nil)
}

// NullableLine is lineSchema that also accepts null.
func NullableLine(maxLength int) string {
	return StringSchema(0, maxLength, text.LinePattern, []string{"string", "null"})
}

// EmailSchema is an address (format email; the pattern refuses the control
// characters a quoted local part would otherwise let through).
func EmailSchema() string {
	return WithFormat(LineSchema(3, text.MaxEmail), "email")
}

// URLSchema is an absolute URL whose scheme matches the given pattern
// ("https?", anyScheme): printable ASCII only (an IRI's host or path is
// written percent- or punycode-encoded), no space or control character.
func URLSchema(schemes string) string {
	return WithFormat(StringSchema(1, text.MaxURL, `^`+schemes+`://[!-~]+$`, nil), "uri")
}

// NullableURLSchema is URLSchema or null (a member that unsets a URL).
func NullableURLSchema(schemes string) string {
	return WithFormat(StringSchema(1, text.MaxURL, `^`+schemes+`://[!-~]+$`, []string{"string", "null"}), "uri")
}

// PatternSchema is a string of a pattern that admits no control character
// (identifiers, scopes), bounded all the same.
func PatternSchema(maxLength int, pattern string) string {
	return StringSchema(0, maxLength, pattern, nil)
}

// AnyScheme is the scheme of a redirect URI: an application's own scheme
// (com.example.app://callback) is as good as https.
const AnyScheme = `[A-Za-z][A-Za-z0-9+.-]*`

// DateTimeSchema is an RFC 3339 timestamp.
func DateTimeSchema() string {
	return WithFormat(StringSchema(0, text.MaxDateTime, "", nil), "date-time")
}

func StringSchema(minLength, maxLength int, pattern string, typ []string) string {
	s := map[string]any{"type": "string", "maxLength": maxLength}
	if typ != nil {
		s["type"] = typ
	}
	if minLength > 0 {
		s["minLength"] = minLength
	}
	if pattern != "" {
		s["pattern"] = pattern
	}
	out, _ := json.Marshal(s)
	return string(out)
}

func WithFormat(schema, format string) string { return WithMember(schema, "format", format) }

// WithMember adds one keyword (format, description) to a schema.
func WithMember(schema, key string, value any) string {
	var s map[string]any
	_ = json.Unmarshal([]byte(schema), &s)
	s[key] = value
	out, _ := json.Marshal(s)
	return string(out)
}

// NonEmptyID is a non-empty one-line identifier (path ids, app ids, filters).
var NonEmptyID = LineSchema(1, text.MaxID)

// Object writes a closed JSON Schema object from member schemas.
func Object(required []string, props map[string]string) json.RawMessage {
	p := make(map[string]json.RawMessage, len(props))
	for k, v := range props {
		p[k] = json.RawMessage(v)
	}
	if required == nil {
		required = []string{}
	}
	out, _ := json.Marshal(map[string]any{"type": "object", "additionalProperties": false, "required": required, "properties": p})
	return out
}

// RequireAnyOf adds to an object schema that at least one of the members is
// present (anyOf of required members): a PATCH that must change something.
func RequireAnyOf(schema json.RawMessage, members ...string) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return schema
	}
	anyOf := make([]any, len(members))
	for i, m := range members {
		anyOf[i] = map[string]any{"required": []string{m}}
	}
	s["anyOf"] = anyOf
	out, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return out
}
