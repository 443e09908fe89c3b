package contacts

import (
	"fmt"
	"strings"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/text"
)

// Fields are what a person edits on a contact. An empty string is "none";
// tags are never null.
type Fields struct {
	FirstName string   `json:"first_name"`
	LastName  string   `json:"last_name"`
	Email     string   `json:"email"`
	Phone     string   `json:"phone"`
	Company   string   `json:"company"`
	JobTitle  string   `json:"job_title"`
	Tags      []string `json:"tags"`
}

// MaxTags bounds a contact's tags.
const MaxTags = 50

// Problem is one field's problem, named by its input member (firstName,
// email, tags ...; "" for the contact as a whole): an HTTP body names it by
// JSON pointer, an import row by its column.
type Problem struct {
	Field  string
	Detail string
}

// Blank is what Normalized trims: ASCII spaces, tabs and line breaks (the
// API's schemas say the same: a member is blank when it holds only spaces,
// one-line members hold no tab or line break).
const Blank = " \t\r\n"

func trim(s string) string { return strings.Trim(s, Blank) }

// Normalized trims every member, drops empty tags and repeats of a tag
// (case-insensitively, the first spelling kept) and never leaves tags nil.
func (f Fields) Normalized() Fields {
	f.FirstName, f.LastName = trim(f.FirstName), trim(f.LastName)
	f.Email, f.Phone = trim(f.Email), trim(f.Phone)
	f.Company, f.JobTitle = trim(f.Company), trim(f.JobTitle)
	tags := make([]string, 0, len(f.Tags))
	seen := map[string]bool{}
	for _, t := range f.Tags {
		t = trim(t)
		if k := strings.ToLower(t); t != "" && !seen[k] {
			seen[k] = true
			tags = append(tags, t)
		}
	}
	f.Tags = tags
	return f
}

// Problems are what keeps normalized fields from being a contact's: bounds
// and control characters (domain/text), an address that is not one, too
// many tags, and a contact with neither a name, an email nor a company.
func (f Fields) Problems() []Problem {
	var out []Problem
	line := func(field, s string, max int) {
		for _, e := range text.Line(nil, "", s, max) {
			out = append(out, Problem{Field: field, Detail: e.Detail})
		}
	}
	line("firstName", f.FirstName, text.MaxTitle)
	line("lastName", f.LastName, text.MaxTitle)
	line("email", f.Email, text.MaxEmail)
	line("phone", f.Phone, text.MaxPhone)
	line("company", f.Company, text.MaxTitle)
	line("jobTitle", f.JobTitle, text.MaxTitle)
	if f.Email != "" && !IsEmail(f.Email) {
		out = append(out, Problem{Field: "email", Detail: "must be an address: one @ between a name and a domain, no spaces"})
	}
	if len(f.Tags) > MaxTags {
		out = append(out, Problem{Field: "tags", Detail: fmt.Sprintf("must be at most %d tags", MaxTags)})
	}
	for _, t := range f.Tags {
		line("tags", t, text.MaxTag)
	}
	if f.FirstName == "" && f.LastName == "" && f.Email == "" && f.Company == "" {
		out = append(out, Problem{Detail: "a contact needs a name, an email or a company"})
	}
	return out
}

// IsEmail reports an address as contacts take one: a name and a domain
// around one @, without spaces (EmailPattern says it to clients). Whether
// the mailbox exists is not ours to judge; a stricter grammar would refuse
// addresses people have.
func IsEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && domain != "" && !strings.ContainsAny(s, " ") && !strings.Contains(domain, "@")
}

// EmailPattern is IsEmail for JSON Schema (empty: no email), with the
// control characters text.Line refuses.
const EmailPattern = `^([^@ \x00-\x1f\x7f-\x9f]+@[^@ \x00-\x1f\x7f-\x9f]+)?$`

// Invalid is the input error for problems of a JSON body: each at the
// pointer of its member (under prefix, e.g. "" for the body's root).
func Invalid(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	fields := make([]errs.Field, len(problems))
	for i, p := range problems {
		fields[i] = errs.Field{Pointer: pointer(p.Field), Detail: p.Detail}
	}
	return errs.Invalid(fields...)
}

func pointer(field string) string {
	if field == "" {
		return ""
	}
	return "/" + field
}

// Merge is f with every non-empty member of over in its place: an import
// row's empty cell keeps what the contact has. An email that is the same
// address spelt in another case keeps the contact's spelling (it is what
// the row was matched by, not a change).
func (f Fields) Merge(over Fields) Fields {
	if EmailKey(over.Email) == EmailKey(f.Email) {
		over.Email = ""
	}
	pick := func(old, new string) string {
		if new != "" {
			return new
		}
		return old
	}
	out := Fields{FirstName: pick(f.FirstName, over.FirstName), LastName: pick(f.LastName, over.LastName),
		Email: pick(f.Email, over.Email), Phone: pick(f.Phone, over.Phone), Company: pick(f.Company, over.Company),
		JobTitle: pick(f.JobTitle, over.JobTitle), Tags: f.Tags}
	if len(over.Tags) > 0 {
		out.Tags = over.Tags
	}
	return out
}

// Equal compares two normalized field sets.
func (f Fields) Equal(o Fields) bool {
	if f.FirstName != o.FirstName || f.LastName != o.LastName || f.Email != o.Email || f.Phone != o.Phone ||
		f.Company != o.Company || f.JobTitle != o.JobTitle || len(f.Tags) != len(o.Tags) {
		return false
	}
	for i := range f.Tags {
		if f.Tags[i] != o.Tags[i] {
			return false
		}
	}
	return true
}
