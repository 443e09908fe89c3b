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

// lineSchema is a single-line text member (titles, names, ids, emails):
// minLength..maxLength characters, no control character.
func lineSchema(minLength, maxLength int) string {
	return stringSchema(minLength, maxLength, text.LinePattern, nil)
}

// textSchema is a multi-line text member (messages): tab and line breaks
// allowed, no other control character.
func textSchema(minLength, maxLength int) string {
	return stringSchema(minLength, maxLength, text.MultiLinePattern, nil)
}

// nullableLine is lineSchema that also accepts null.
func nullableLine(maxLength int) string {
	return stringSchema(0, maxLength, text.LinePattern, []string{"string", "null"})
}

// emailSchema is an address (format email; the pattern refuses the control
// characters a quoted local part would otherwise let through).
func emailSchema() string {
	return withFormat(lineSchema(3, text.MaxEmail), "email")
}

// urlSchema is an absolute URL whose scheme matches the given pattern
// ("https?", anyScheme): printable ASCII only (an IRI's host or path is
// written percent- or punycode-encoded), no space or control character.
func urlSchema(schemes string) string {
	return withFormat(stringSchema(1, text.MaxURL, `^`+schemes+`://[!-~]+$`, nil), "uri")
}

// patternSchema is a string of a pattern that admits no control character
// (identifiers, scopes), bounded all the same.
func patternSchema(maxLength int, pattern string) string {
	return stringSchema(0, maxLength, pattern, nil)
}

// anyScheme is the scheme of a redirect URI: an application's own scheme
// (com.example.app://callback) is as good as https.
const anyScheme = `[A-Za-z][A-Za-z0-9+.-]*`

// dateTimeSchema is an RFC 3339 timestamp.
func dateTimeSchema() string {
	return withFormat(stringSchema(0, text.MaxDateTime, "", nil), "date-time")
}

func stringSchema(minLength, maxLength int, pattern string, typ []string) string {
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

func withFormat(schema, format string) string { return withMember(schema, "format", format) }

// withMember adds one keyword (format, description) to a schema.
func withMember(schema, key string, value any) string {
	var s map[string]any
	_ = json.Unmarshal([]byte(schema), &s)
	s[key] = value
	out, _ := json.Marshal(s)
	return string(out)
}
