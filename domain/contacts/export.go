package contacts

import "strings"

// ExportColumns are the header of a CSV export: every field of a contact,
// its pipeline and stage (by name), its tags and how many notes and
// attachments it has.
var ExportColumns = []string{"contact_id", "first_name", "last_name", "email", "phone", "company", "job_title", "tags",
	"pipeline", "stage", "stage_entered_at", "note_count", "attachment_count", "created_at", "updated_at"}

// TagSeparator joins a contact's tags in one cell; an import splits on it.
const TagSeparator = "; "

// NeutralizeCell keeps a spreadsheet from reading a cell as a formula (CSV
// injection): a cell starting with =, +, -, @, a tab or a carriage return
// gets a leading apostrophe (OWASP's advice), which spreadsheets show as
// text and do not evaluate. A phone number "+1 555" is exported as "'+1 555".
func NeutralizeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
