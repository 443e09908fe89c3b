package contacts

import "strings"

// Match keys: how an import row finds the contact it is about. A row with
// an email matches by its normalized email; a row without one by its
// normalized name and company. Only live contacts have keys (a soft-deleted
// contact never matches, so its email can be imported again).

// EmailKey is the normalized email ("" for none): trimmed, lower-case.
func EmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// NameKey is the normalized "first last|company" ("" without a name):
// lower-case, blanks collapsed.
func NameKey(first, last, company string) string {
	name := fold(first + " " + last)
	if name == "" {
		return ""
	}
	return name + "|" + fold(company)
}

func fold(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// Keys are the contact's match keys ("" where it has none).
func (c Contact) Keys() (email, name string) {
	return EmailKey(c.Email), NameKey(c.FirstName, c.LastName, c.Company)
}

// Key is the kind ("email" or "name") and value a row matches by; value is
// "" when the row can match nothing.
func (f Fields) Key() (kind, value string) {
	if e := EmailKey(f.Email); e != "" {
		return "email", e
	}
	return "name", NameKey(f.FirstName, f.LastName, f.Company)
}
