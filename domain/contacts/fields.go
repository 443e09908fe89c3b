package contacts

import (
	"fmt"
	"net/mail"
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

// Normalized trims every member, drops empty tags and repeats of a tag
// (case-insensitively, the first spelling kept) and never leaves tags nil.
func (f Fields) Normalized() Fields {
	f.FirstName, f.LastName = strings.TrimSpace(f.FirstName), strings.TrimSpace(f.LastName)
	f.Email, f.Phone = strings.TrimSpace(f.Email), strings.TrimSpace(f.Phone)
	f.Company, f.JobTitle = strings.TrimSpace(f.Company), strings.TrimSpace(f.JobTitle)
	tags := make([]string, 0, len(f.Tags))
	seen := map[string]bool{}
	for _, t := range f.Tags {
		t = strings.TrimSpace(t)
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
		out = append(out, Problem{Field: "email", Detail: "must be an email address (name@example.com)"})
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

// IsEmail reports a bare address (no display name, no angle brackets).
func IsEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && strings.Count(s, "@") == 1
}

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
// row's empty cell keeps what the contact has.
func (f Fields) Merge(over Fields) Fields {
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
