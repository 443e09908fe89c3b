// Package text bounds the text members commands accept, in one place: the
// HTTP input schemas (http/bounds.go) and the domain decisions read the same
// limits and the same notion of a control character, so what the API refuses
// the domain refuses too (a 900 KB incident title was once stored and would
// have been served on the public status page).
package text

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/platform/backend/domain/errs"
)

// Maximum lengths, in characters (Unicode code points, as JSON Schema's
// maxLength counts them).
const (
	MaxID         = 128   // identifiers, scopes and filters a client names (ids, event types, resource ids)
	MaxLabel      = 120   // labels of API keys and developer applications
	MaxGroup      = 60    // a catalog surface group
	MaxTitle      = 200   // titles and display names: one line on a page or in a list
	MaxPermission = 192   // "<app id>.<resource>:<action>": an app id (63) and a scope
	MaxHost       = 253   // a DNS name
	MaxReason     = 500   // a short note kept with a state change
	MaxMessage    = 10000 // multi-line bodies: incident updates, maintenance notes
	MaxEmail      = 254   // RFC 5321's path limit
	MaxURL        = 2048  // what browsers and proxies carry reliably
	MaxPassword   = 256   // the password hasher's input bound (domain/identity checks 256 bytes)
	MaxToken      = 300   // opaque tokens and one-time codes (a session token is under 100)
	MaxDateTime   = 64    // RFC 3339 with nanoseconds and an offset is 35
	MaxPhone      = 64    // a phone number as people write it (E.164 is 15 digits)
	MaxTag        = 64    // one tag of a contact
	MaxFilename   = 255   // a file name (most file systems' bound, in bytes)
)

// Patterns of the HTTP input schemas (Go and ECMA-262 regular expressions
// both read \xHH): a single line has no control character (C0, DEL, C1); a
// multi-line text may hold tab, line feed and carriage return, nothing else
// of them. NUL in particular: PostgreSQL's jsonb refuses \u0000, so it could
// only ever fail later, as a 500.
const (
	LinePattern      = `^[^\x00-\x1f\x7f-\x9f]*$`
	MultiLinePattern = `^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$`
)

// Required texts (titles, names, notes) must hold a character that is not
// a blank: ASCII spaces and line breaks only, so the schemas' patterns can
// say the same as the domain (Trim) in both Go's and ECMA-262's regular
// expressions.
const (
	Blanks              = " \t\r\n"
	NonBlankLinePattern = `^ *[^ \x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$`
	NonBlankTextPattern = `^[ \t\r\n]*[^ \t\r\n\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$`
)

// Trim removes the blanks around a text ("" when it holds nothing else).
func Trim(s string) string { return strings.Trim(s, Blanks) }

// Control reports a control character (Unicode category Cc).
func Control(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// IsLine reports text without control characters.
func IsLine(s string) bool {
	for _, r := range s {
		if Control(r) {
			return false
		}
	}
	return true
}

// IsMultiLine reports text whose only control characters are \t, \n, \r.
func IsMultiLine(s string) bool {
	for _, r := range s {
		if Control(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}

// Line appends the problem of a single-line member (too long, or holding a
// control character) to fields.
func Line(fields []errs.Field, pointer, s string, max int) []errs.Field {
	return check(fields, pointer, s, max, IsLine(s), "must be one line without control characters")
}

// MultiLine appends the problem of a multi-line member to fields.
func MultiLine(fields []errs.Field, pointer, s string, max int) []errs.Field {
	return check(fields, pointer, s, max, IsMultiLine(s), "must not hold control characters other than tab and line breaks")
}

func check(fields []errs.Field, pointer, s string, max int, clean bool, dirty string) []errs.Field {
	switch {
	case utf8.RuneCountInString(s) > max:
		return append(fields, errs.Field{Pointer: pointer, Detail: fmt.Sprintf("must be at most %d characters", max)})
	case !clean:
		return append(fields, errs.Field{Pointer: pointer, Detail: dirty})
	}
	return fields
}
