package contacts

import (
	"strings"
	"time"
	"unicode/utf8"
)

// vCard 4.0 (RFC 6350), beside CSV: a contact as a card, and a card read
// back as an import row. The export writes one card per contact; the import
// reads cards as records under VCardColumns, so they go through the same
// mapping, match keys, batches and undo as a CSV file's rows.

// VCardStageProperty carries the contact's stage (by name) in its card: an
// extended property (RFC 6350 §6.10), which other programs keep or ignore.
const VCardStageProperty = "X-PLATFORM-STAGE"

// VCardColumns are the record a card is read as: header names the import
// recognises for each field.
var VCardColumns = []string{"first_name", "last_name", "email", "phone", "company", "job_title", "tags", "stage"}

// VCard is a contact's card.
type VCard struct {
	UID                                                 string // urn:uuid:<contact id>
	First, Last, Email, Phone, Company, JobTitle, Stage string
	Tags                                                []string
	Rev                                                 time.Time
}

// Encode writes the card: CRLF line ends, text values escaped (§3.4),
// lines folded at 75 octets without splitting a character (§3.2). FN is
// required: the name, else the company, else the email.
func (c VCard) Encode() string {
	var b strings.Builder
	line := func(s string) { b.WriteString(foldLine(s)) }
	line("BEGIN:VCARD")
	line("VERSION:4.0")
	if c.UID != "" {
		line("UID:" + c.UID)
	}
	fn := strings.TrimSpace(c.First + " " + c.Last)
	if fn == "" {
		fn = c.Company
	}
	if fn == "" {
		fn = c.Email
	}
	line("FN:" + escapeText(fn))
	line("N:" + escapeText(c.Last) + ";" + escapeText(c.First) + ";;;")
	if c.Email != "" {
		line("EMAIL:" + escapeText(c.Email))
	}
	if c.Phone != "" {
		line("TEL;VALUE=text:" + escapeText(c.Phone))
	}
	if c.Company != "" {
		line("ORG:" + escapeText(c.Company))
	}
	if c.JobTitle != "" {
		line("TITLE:" + escapeText(c.JobTitle))
	}
	if len(c.Tags) > 0 {
		parts := make([]string, len(c.Tags))
		for i, t := range c.Tags {
			parts[i] = escapeText(t)
		}
		line("CATEGORIES:" + strings.Join(parts, ","))
	}
	if c.Stage != "" {
		line(VCardStageProperty + ":" + escapeText(c.Stage))
	}
	if !c.Rev.IsZero() {
		line("REV:" + c.Rev.UTC().Format("20060102T150405Z"))
	}
	line("END:VCARD")
	return b.String()
}

// escapeText escapes a text value: backslash, comma, semicolon and line
// breaks (§3.4).
func escapeText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, ",", `\,`, ";", `\;`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)
	return r.Replace(s)
}

// foldLine writes a content line: at most 75 octets a line, continuations
// starting with a space, never inside a UTF-8 sequence.
func foldLine(s string) string {
	const limit = 75
	var b strings.Builder
	width := limit
	for len(s) > width {
		cut := width
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		b.WriteString(s[:cut])
		b.WriteString("\r\n ")
		s = s[cut:]
		width = limit - 1 // the leading space counts
	}
	b.WriteString(s)
	b.WriteString("\r\n")
	return b.String()
}

// VCardProperty is one content line of a card: its name (upper-case,
// without a group), its parameters (names upper-case) and its raw value.
type VCardProperty struct {
	Name   string
	Params map[string]string
	Value  string
}

// ParseVCardLine reads an unfolded content line:
// [group "."] name *(";" param) ":" value. ok is false for a line that is
// not one (no colon, no name).
func ParseVCardLine(line string) (VCardProperty, bool) {
	p := VCardProperty{Params: map[string]string{}}
	inQuote := false
	colon := -1
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			inQuote = !inQuote
		case ':':
			if !inQuote {
				colon = i
			}
		}
		if colon >= 0 {
			break
		}
	}
	if colon <= 0 {
		return p, false
	}
	head, value := line[:colon], line[colon+1:]
	parts := splitUnquoted(head, ';')
	name := parts[0]
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		name = name[dot+1:]
	}
	if name == "" {
		return p, false
	}
	p.Name, p.Value = strings.ToUpper(name), value
	for _, param := range parts[1:] {
		k, v, _ := strings.Cut(param, "=")
		p.Params[strings.ToUpper(k)] = strings.Trim(v, `"`)
	}
	return p, true
}

func splitUnquoted(s string, sep byte) []string {
	var out []string
	inQuote, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inQuote = !inQuote
		case sep:
			if !inQuote {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// VCardValues splits a text value on an unescaped sep (';' between the
// components of N and ORG, ',' between list items) and unescapes each part.
func VCardValues(value string, sep byte) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case c == '\\' && i+1 < len(value):
			i++
			switch value[i] {
			case 'n', 'N':
				b.WriteByte('\n')
			default:
				b.WriteByte(value[i])
			}
		case c == sep:
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, b.String())
}

// VCardText is a text value unescaped whole (FN, TITLE, EMAIL, TEL).
func VCardText(value string) string { return strings.Join(VCardValues(value, 0), "") }

// CardReader gathers one card's properties into its record (VCardColumns):
// the first value of each property, a preferred one (PREF=1) first; N's
// given and family names (a component's several values joined by spaces),
// else FN as the first name; ORG's organization name; TEL as text or a tel:
// URI; CATEGORIES as tags. N's additional names join the given ones.
type CardReader struct {
	first, last, fn, email, phone, company, title, stage string
	tags                                                 []string
	emailPref, phonePref                                 int
	hasN                                                 bool
}

// Add reads one property of the card.
func (r *CardReader) Add(p VCardProperty) {
	pref := func() int {
		if v := p.Params["PREF"]; len(v) == 1 && v[0] >= '1' && v[0] <= '9' {
			return int(v[0] - '0')
		}
		if strings.Contains(strings.ToLower(p.Params["TYPE"]), "pref") { // vCard 3.0
			return 1
		}
		return 100
	}
	// A component of N is a list (several given names): its values joined
	// by a space.
	component := func(parts []string, i int) string {
		if i >= len(parts) {
			return ""
		}
		var names []string
		for _, v := range VCardValues(parts[i], ',') {
			if v != "" {
				names = append(names, v)
			}
		}
		return strings.Join(names, " ")
	}
	switch p.Name {
	case "N":
		// family; given; additional (middle names, read as part of the
		// first name); prefixes; suffixes.
		parts := splitEscaped(p.Value, ';')
		r.last, r.first, r.hasN = component(parts, 0), strings.TrimSpace(component(parts, 1)+" "+component(parts, 2)), true
	case "FN":
		r.fn = VCardText(p.Value)
	case "EMAIL":
		if v := strings.TrimSpace(VCardText(p.Value)); v != "" && (r.email == "" || pref() < r.emailPref) {
			r.email, r.emailPref = strings.TrimPrefix(v, "mailto:"), pref()
		}
	case "TEL":
		if v := strings.TrimSpace(VCardText(p.Value)); v != "" && (r.phone == "" || pref() < r.phonePref) {
			r.phone, r.phonePref = strings.TrimPrefix(v, "tel:"), pref()
		}
	case "ORG":
		if r.company == "" {
			r.company = VCardValues(p.Value, ';')[0]
		}
	case "TITLE":
		if r.title == "" {
			r.title = VCardText(p.Value)
		}
	case "CATEGORIES":
		for _, t := range VCardValues(p.Value, ',') {
			if t = strings.TrimSpace(t); t != "" {
				r.tags = append(r.tags, t)
			}
		}
	case VCardStageProperty:
		r.stage = VCardText(p.Value)
	}
}

// splitEscaped splits on an unescaped sep, keeping the escapes (N's
// components are lists themselves, split after).
func splitEscaped(value string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(value); i++ {
		if value[i] == '\\' {
			i++
			continue
		}
		if value[i] == sep {
			out = append(out, value[start:i])
			start = i + 1
		}
	}
	return append(out, value[start:])
}

// Record is the card as a record under VCardColumns, each cell written as
// an export cell is (NeutralizeCell), so that the import's RestoreCell gives
// back the card's value exactly.
func (r *CardReader) Record() []string {
	first, last := r.first, r.last
	if !r.hasN && first == "" && last == "" {
		first = r.fn
	}
	rec := []string{first, last, r.email, r.phone, r.company, r.title, strings.Join(r.tags, TagSeparator), r.stage}
	for i := range rec {
		rec[i] = NeutralizeCell(rec[i])
	}
	return rec
}
