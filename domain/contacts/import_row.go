package contacts

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/text"
)

// ImportFields are the members a file's columns can fill, as the mapping
// names them (map.<field>=<column header>).
var ImportFields = []string{"firstName", "lastName", "email", "phone", "company", "jobTitle", "tags", "stage"}

// aliases are the header names each field takes without a mapping,
// compared with case, blanks, dashes and underscores ignored.
var aliases = map[string][]string{
	"firstName": {"firstname", "givenname", "first", "forename"},
	"lastName":  {"lastname", "surname", "familyname", "last"},
	"email":     {"email", "emailaddress", "mail", "e-mail"},
	"phone":     {"phone", "phonenumber", "telephone", "tel", "mobile"},
	"company":   {"company", "companyname", "organization", "organisation", "account"},
	"jobTitle":  {"jobtitle", "title", "position", "role"},
	"tags":      {"tags", "tag", "labels"},
	"stage":     {"stage", "pipelinestage", "stageid"},
}

// MaxColumns bounds a file's header.
const MaxColumns = 500

// RowError is a row the import refuses: its line in the file, the column
// (1-based; 0 for the row as a whole) and the field it would fill.
type RowError struct {
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Field  string `json:"field,omitempty"`
	Detail string `json:"detail"`
}

// Row is a file's row as contact fields: empty members are cells the file
// leaves empty (an update keeps the contact's value there).
type Row struct {
	Line   int    `json:"line"`
	Fields Fields `json:"fields"`
	// Stage is the stage cell: a stage id or name ("" none).
	Stage string `json:"stage,omitempty"`
}

// Mapping says which column fills which field.
type Mapping struct {
	columns map[string]int // field -> 0-based column
	width   int
	header  []string
}

// NewMapping reads a file's header with the fields the client mapped
// (field -> header name); without any, headers are recognised by name. The
// error names the mapping member (/map.<field>) a header is missing for.
func NewMapping(header []string, explicit map[string]string) (Mapping, error) {
	m := Mapping{columns: map[string]int{}, width: len(header), header: header}
	if len(header) > MaxColumns {
		return Mapping{}, errs.InvalidField("/body", fmt.Sprintf("the header has %d columns; at most %d", len(header), MaxColumns))
	}
	for i, h := range header {
		if fields := text.Line(nil, "/body", h, text.MaxTitle); len(fields) > 0 {
			return Mapping{}, errs.InvalidField("/body", fmt.Sprintf("header column %d %s", i+1, fields[0].Detail))
		}
	}
	var missing []errs.Field
	for _, field := range ImportFields {
		name, ok := explicit[field]
		if !ok || name == "" {
			continue
		}
		col := slices.IndexFunc(header, func(h string) bool { return strings.TrimSpace(h) == strings.TrimSpace(name) })
		if col < 0 {
			missing = append(missing, errs.Field{Pointer: "/map." + field, Detail: "the file has no column " + quote(name)})
			continue
		}
		m.columns[field] = col
	}
	if len(missing) > 0 {
		return Mapping{}, errs.Invalid(missing...)
	}
	if len(explicit) == 0 {
		for i, h := range header {
			if field := recognise(h); field != "" {
				if _, taken := m.columns[field]; !taken {
					m.columns[field] = i
				}
			}
		}
	}
	if len(m.columns) == 0 {
		return Mapping{}, errs.InvalidField("/body", "no column of the header is a contact field; map them with map.<field>=<column>")
	}
	return m, nil
}

func quote(s string) string { return `"` + s + `"` }

// recognise is the field a header name stands for ("" none).
func recognise(h string) string {
	key := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '_' || r == '-' || r == '.' {
			return -1
		}
		return unicode.ToLower(r)
	}, h)
	for field, names := range aliases {
		for _, n := range names {
			if strings.ReplaceAll(n, "-", "") == key {
				return field
			}
		}
	}
	return ""
}

// Columns are the mapping as field -> header name (the import's record).
func (m Mapping) Columns() map[string]string {
	out := make(map[string]string, len(m.columns))
	for f, c := range m.columns {
		out[f] = m.header[c]
	}
	return out
}

// Ignored are the header names no field reads, in file order.
func (m Mapping) Ignored() []string {
	used := map[int]bool{}
	for _, c := range m.columns {
		used[c] = true
	}
	out := []string{}
	for i, h := range m.header {
		if !used[i] {
			out = append(out, h)
		}
	}
	return out
}

// Row reads one record (line is its line in the file) into a row, or the
// row's errors: a record of another width than the header, a cell that
// holds what no contact may (bounds, control characters, an address that
// is not one), a stage the pipeline does not have.
func (m Mapping) Row(line int, record []string, p Pipeline) (Row, []RowError) {
	if len(record) != m.width {
		return Row{}, []RowError{{Line: line, Detail: fmt.Sprintf("has %d fields; the header has %d", len(record), m.width)}}
	}
	cell := func(field string) string {
		if c, ok := m.columns[field]; ok {
			return RestoreCell(record[c]) // our export's escaping, undone (NeutralizeCell)
		}
		return ""
	}
	f := Fields{FirstName: cell("firstName"), LastName: cell("lastName"), Email: cell("email"), Phone: cell("phone"),
		Company: cell("company"), JobTitle: cell("jobTitle"), Tags: splitTags(cell("tags"))}.Normalized()
	row := Row{Line: line, Fields: f, Stage: strings.TrimSpace(cell("stage"))}
	var out []RowError
	for _, pr := range f.Problems() {
		out = append(out, RowError{Line: line, Column: m.column(pr.Field), Field: pr.Field, Detail: pr.Detail})
	}
	if row.Stage != "" {
		if st, ok := p.StageNamed(row.Stage); ok {
			row.Stage = st.StageID
		} else {
			out = append(out, RowError{Line: line, Column: m.column("stage"), Field: "stage", Detail: "is not a stage of the pipeline"})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Column < out[j].Column })
	return row, out
}

// column is the 1-based column of a field (0 when unmapped or the row as a whole).
func (m Mapping) column(field string) int {
	if c, ok := m.columns[field]; ok {
		return c + 1
	}
	return 0
}

// splitTags reads a tags cell: tags separated by ";" or ",".
func splitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' })
}
