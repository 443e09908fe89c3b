package contacts

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// commonWords are the words most contacts have (PostgreSQL's statistics of
// the full-text column as ANALYZE leaves them: its most common elements
// and the share of rows holding each), so a search can leave them out of
// what it asks of an index. A GIN index answers a prefix term by reading
// every row id of every word it begins: "example" and "com" of an email
// typed whole were 100,000 ids each over 100,000 contacts (4 ms of a 4.4 ms
// search), where "garcxa34115" alone finds the one contact.
type commonWords struct {
	words []string  // sorted
	freqs []float64 // share of rows holding words[i]
}

// commonFreq is the share of rows from which a word is common: left out of
// the index condition (and checked on the rows found) when the query has a
// word that is not common.
const commonFreq = 0.25

// freq estimates the share of rows holding a word that begins with prefix
// (the sum over the common words it begins, at most 1): 0 for a word the
// statistics do not list.
func (c *commonWords) freq(prefix string) float64 {
	if c == nil {
		return 0
	}
	var sum float64
	for i, _ := slices.BinarySearch(c.words, prefix); i < len(c.words) && strings.HasPrefix(c.words[i], prefix); i++ {
		sum += c.freqs[i]
	}
	return min(sum, 1)
}

// common: a word of one letter or digit is (it begins some word of most
// contacts, and the statistics list only the most common of those words);
// else by the statistics.
func (c *commonWords) common(word string) bool {
	return utf8.RuneCountInString(word) == 1 || c.freq(strings.ToLower(word)) >= commonFreq
}

// wordStats caches commonWords per table (a generation's table; statistics
// change slowly and only steer which index condition a search uses, never
// what it finds).
type wordStats struct {
	mu     sync.Mutex
	tables map[string]cachedWords
}

type cachedWords struct {
	at    time.Time
	words *commonWords
}

// statsTTL is how long a table's word statistics are used before they are
// read again.
const statsTTL = 5 * time.Minute

func (s *wordStats) get(ctx context.Context, q *Queries, table string) (*commonWords, error) {
	s.mu.Lock()
	c, ok := s.tables[table]
	s.mu.Unlock()
	if ok && q.now().Sub(c.at) < statsTTL {
		return c.words, nil
	}
	var words []string
	var freqs []float64
	err := q.pool.QueryRow(ctx, `SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats
		WHERE schemaname = current_schema() AND tablename = $1 AND attname = 'search'`, table).Scan(&words, &freqs)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	cw := &commonWords{}
	if len(words) > 0 && len(freqs) >= len(words) { // freqs ends with three summary figures
		idx := make([]int, len(words))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(words[a], words[b]) })
		for _, i := range idx {
			cw.words, cw.freqs = append(cw.words, words[i]), append(cw.freqs, freqs[i])
		}
	}
	s.mu.Lock()
	if s.tables == nil {
		s.tables = map[string]cachedWords{}
	}
	s.tables[table] = cachedWords{at: q.now(), words: cw}
	s.mu.Unlock()
	return cw, nil
}
