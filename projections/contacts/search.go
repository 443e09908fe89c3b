package contacts

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// search is a query over contacts' names, emails, companies and tags, two
// ways:
//   - words (full text): PostgreSQL's simple configuration over the folded
//     (lower-case, unaccented) text split at its punctuation, every word of
//     the query a prefix term, all words required: "acme" finds "ACME
//     Corp", "jo smi" finds "Joanna Smith";
//   - part of a word (trigrams, pg_trgm): the folded query anywhere in the
//     text, for what full text cannot see: "ann" finds
//     "joanna@example.com". Queries shorter than three characters skip it
//     (a trigram index cannot serve them).
//
// A search lists its word matches first, best first (ts_rank), then the
// contacts only a part of a word finds, oldest first. The two are separate
// queries: the part-of-a-word one runs only when the word matches run out
// before the page is full, so a common name never pays for it. Each part
// takes at most MaxMatches matches as the index finds them: word matches
// are ranked among those (ranking reads each match's row), so a search for
// a common name ("Rossi": 3,300 of 100,000 contacts) ranks 1,000 rows, not
// 3,300. The export of a search has no such bound.
type search struct {
	terms  string   // to_tsquery text, "" when the query has no word
	needle string   // the query for the substring match, "" when too short
	words  []string // the words of terms

	// What the index is asked for when the query has common words (keys):
	// a part of the query, "" when it is the whole; the rows found are
	// checked against the whole query.
	keyTerms, keyNeedle string
}

// maxTerms bounds the words of a query that become terms.
const maxTerms = 8

// MaxMatches bounds the matches each part of a search ranks and lists.
const MaxMatches = 1000

func newSearch(q string) search {
	q = strings.TrimSpace(q)
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	terms := make([]string, 0, min(len(words), maxTerms))
	for _, w := range words[:min(len(words), maxTerms)] {
		terms = append(terms, "'"+w+"':*") // letters and digits only: nothing to escape
	}
	s := search{terms: strings.Join(terms, " & "), words: words[:min(len(words), maxTerms)]}
	if utf8.RuneCountInString(q) >= 3 {
		s.needle = q
	}
	return s
}

func (s search) empty() bool { return s.terms == "" && s.needle == "" }

// keys leaves the common words (commonWords) out of what the indexes are
// asked for, when the query has a word that is not common: the terms of
// the others, and the longest stretch of the needle without a common word
// (at least three characters: a trigram index needs one trigram). Typed
// whole, an email is asked of the full-text index as its name and domain
// ("ines", "garcxa34115", "bluth38"), not "example" and "com", and of the
// trigram index as "ines.garcxa34115@bluth38".
func (s search) keys(c *commonWords) search {
	var rare []string
	for _, w := range s.words {
		if !c.common(w) {
			rare = append(rare, "'"+w+"':*")
		}
	}
	if len(rare) > 0 && len(rare) < len(s.words) {
		s.keyTerms = strings.Join(rare, " & ")
	}
	if s.needle == "" {
		return s
	}
	// The needle's words (runs of letters and digits), and the longest
	// stretch of consecutive words none of which is common.
	runes := []rune(s.needle)
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
	bestFrom, bestTo, from, anyCommon := 0, 0, -1, false
	for i := 0; i < len(runes); {
		if !isWord(runes[i]) {
			i++
			continue
		}
		j := i
		for j < len(runes) && isWord(runes[j]) {
			j++
		}
		if c.common(string(runes[i:j])) {
			anyCommon, from = true, -1
		} else {
			if from < 0 {
				from = i
			}
			if j-from > bestTo-bestFrom {
				bestFrom, bestTo = from, j
			}
		}
		i = j
	}
	if anyCommon && bestTo-bestFrom >= 3 {
		s.keyNeedle = string(runes[bestFrom:bestTo])
	}
	return s
}

// query adds the search's arguments to w and returns the FROM item that
// computes them once: q.tsq (the tsquery), q.pattern (the LIKE pattern)
// and their keys q.tsk and q.pk, each present when the search has it.
func (s search) query(w *where) string {
	var cols []string
	tsquery := func(text, as string) {
		w.args = append(w.args, text)
		cols = append(cols, fmt.Sprintf("to_tsquery('simple', contacts_fold($%d)) AS %s", len(w.args), as))
	}
	pattern := func(text, as string) {
		w.args = append(w.args, text)
		cols = append(cols, fmt.Sprintf(`'%%' || replace(replace(replace(contacts_fold($%d), '\', '\\'), '%%', '\%%'), '_', '\_') || '%%' AS %s`, len(w.args), as))
	}
	if s.terms != "" {
		tsquery(s.terms, "tsq")
	}
	if s.keyTerms != "" {
		tsquery(s.keyTerms, "tsk")
	}
	if s.needle != "" {
		pattern(s.needle, "pattern")
	}
	if s.keyNeedle != "" {
		pattern(s.keyNeedle, "pk")
	}
	return "(SELECT " + strings.Join(cols, ", ") + ") q"
}

// The conditions on {{contacts}} c and the search's q. "IS TRUE" keeps a
// condition out of an index scan: the rows the key found are checked.
const (
	wordMatch = "c.search @@ q.tsq"
	partMatch = "c.search_text LIKE q.pattern"
	wordKey   = "c.search @@ q.tsk AND (c.search @@ q.tsq) IS TRUE"
	partKey   = "c.search_text LIKE q.pk AND (c.search_text LIKE q.pattern) IS TRUE"
)

// any is the condition of every match, either way (the export's).
func (s search) any() string {
	var match []string
	if s.terms != "" {
		match = append(match, wordMatch)
	}
	if s.needle != "" {
		match = append(match, partMatch)
	}
	return "(" + strings.Join(match, " OR ") + ")"
}

// wordsOnly is the condition of the word matches.
func (s search) wordsOnly() string {
	if s.keyTerms != "" {
		return wordKey
	}
	return wordMatch
}

// partOnly is the condition of the part-of-a-word matches that are not word
// matches (those were listed first).
func (s search) partOnly() string {
	match := partMatch
	if s.keyNeedle != "" {
		match = partKey
	}
	if s.terms == "" {
		return match
	}
	return match + " AND NOT " + wordMatch
}
