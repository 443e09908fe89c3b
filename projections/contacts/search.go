package contacts

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// search is a query over contacts' names, emails, companies and tags, two
// ways at once (their matches are ORed and ranked together):
//   - full text: PostgreSQL's simple configuration over the folded
//     (lower-case, unaccented) text, every word a prefix term, all words
//     required: "acme" finds "ACME Corp", "jo smi" finds "Joanna Smith";
//   - trigrams (pg_trgm): the folded query anywhere in the text, for parts
//     of words full text cannot see: "ann" finds "joanna@example.com".
//     Queries shorter than three characters skip it (a trigram index
//     cannot serve them).
//
// The rank is ts_rank of the full-text match (a contact found only by a
// part of a word ranks after those found by whole words or prefixes).
// Ranking costs per match (each is a row read from the table), so a search
// ranks its first MaxMatches matches and lists no more; the export of a
// search has no such bound. Measured over 100,000 contacts: a four-letter
// name matching 3,300 of them took 20-60 ms ranked whole, 4-8 ms capped at
// 1,000; word_similarity as a second rank tripled a search's time; ranking
// the 100,000 matches of "example.com" took 400 ms.
type search struct {
	terms  string // to_tsquery text, "" when the query has no word
	needle string // the query for the substring match, "" when too short
}

// maxTerms bounds the words of a query that become terms.
const maxTerms = 8

// MaxMatches bounds the matches a search ranks and lists.
const MaxMatches = 1000

func newSearch(q string) search {
	q = strings.TrimSpace(q)
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	terms := make([]string, 0, min(len(words), maxTerms))
	for _, w := range words[:min(len(words), maxTerms)] {
		terms = append(terms, "'"+w+"':*") // letters and digits only: nothing to escape
	}
	s := search{terms: strings.Join(terms, " & ")}
	if utf8.RuneCountInString(q) >= 3 {
		s.needle = q
	}
	return s
}

func (s search) empty() bool { return s.terms == "" && s.needle == "" }

// clauses adds the search's match to w and returns the FROM item that
// computes its query once (q) and the rank expression.
func (s search) clauses(w *where) (from, rank string) {
	var match, ranks, cols []string
	if s.terms != "" {
		w.args = append(w.args, s.terms)
		cols = append(cols, fmt.Sprintf("to_tsquery('simple', contacts_fold($%d)) AS tsq", len(w.args)))
		match = append(match, "c.search @@ q.tsq")
		ranks = append(ranks, "ts_rank(c.search, q.tsq)")
	}
	if s.needle != "" {
		w.args = append(w.args, s.needle)
		cols = append(cols, fmt.Sprintf(`'%%' || replace(replace(replace(contacts_fold($%d), '\', '\\'), '%%', '\%%'), '_', '\_') || '%%' AS pattern`, len(w.args)))
		match = append(match, "c.search_text LIKE q.pattern")
	}
	if len(ranks) == 0 {
		ranks = append(ranks, "0")
	}
	w.parts = append(w.parts, "("+strings.Join(match, " OR ")+")")
	return "(SELECT " + strings.Join(cols, ", ") + ") q", strings.Join(ranks, " + ")
}
