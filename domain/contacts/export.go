package contacts

import "strings"

// ExportColumns are the header of a CSV export: every field of a contact,
// its pipeline and stage (by name), its tags and how many notes and
// attachments it has.
var ExportColumns = []string{"contact_id", "first_name", "last_name", "email", "phone", "company", "job_title", "tags",
	"pipeline", "stage", "stage_entered_at", "note_count", "attachment_count", "created_at", "updated_at"}

// TagSeparator joins a contact's tags in one cell; an import splits on it.
const TagSeparator = "; "

// formulaStarts: a cell starting with one of them is read as a formula by
// spreadsheets (CSV injection; OWASP's list).
const formulaStarts = "=+-@\t\r"

// NeutralizeCell keeps a spreadsheet from reading a cell as a formula (CSV
// injection): a cell starting with =, +, -, @, a tab or a carriage return
// gets a leading apostrophe (OWASP's advice), which spreadsheets show as
// text and do not evaluate. A phone number "+1 555" is exported as "'+1 555".
//
// So that an import reads the export back as it was (RestoreCell), a value
// that itself starts with an apostrophe followed by one of those or by
// another apostrophe gets one more apostrophe, and any other value ("'Tis")
// is written as it is:
//
//	+1 555    ->  '+1 555
//	'+1 555   ->  ''+1 555
//	'Tis      ->  'Tis
func NeutralizeCell(s string) string {
	if s != "" && strings.ContainsRune(formulaStarts, rune(s[0])) || escapedCell(s) {
		return "'" + s
	}
	return s
}

// RestoreCell undoes NeutralizeCell on an imported cell: an apostrophe
// followed by a formula character or by another apostrophe is the export's
// and is dropped; any other cell is the value (a name like "'Tis" keeps its
// apostrophe). RestoreCell(NeutralizeCell(v)) == v for every v, and a cell
// a person typed as "'+1 555" in a spreadsheet (to keep it from being a
// formula) reads as "+1 555", as the spreadsheet showed it.
func RestoreCell(s string) string {
	if escapedCell(s) {
		return s[1:]
	}
	return s
}

// escapedCell: an apostrophe, then a formula character or an apostrophe.
func escapedCell(s string) bool {
	return len(s) > 1 && s[0] == '\'' && (s[1] == '\'' || strings.ContainsRune(formulaStarts, rune(s[1])))
}
