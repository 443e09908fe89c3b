package contacts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/projections"
)

// Queries reads the active generation of the contacts read model. Every
// query names the organization: another organization's ids are missing ones.
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
	now    func() time.Time
	words  *wordStats
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader, now func() time.Time) *Queries {
	if now == nil {
		now = time.Now
	}
	return &Queries{pool: pool, reader: reader, now: now, words: &wordStats{}}
}

func (q *Queries) sql(ctx context.Context, s string) (string, error) {
	return q.reader.SQL(ctx, Projection{}, s)
}

// Contact is a contact as the API reads it: its state and how many notes
// and attachments it has.
type Contact struct {
	domain.Contact
	NoteCount       int `json:"note_count"`
	AttachmentCount int `json:"attachment_count"`
}

// contactSelect are the columns scanContact reads, from {{contacts}} c.
const contactSelect = `c.contact_id::text, c.revision, c.first_name, c.last_name, c.email, c.phone, c.company, c.job_title, c.tags,
	c.pipeline_id, c.stage_id, c.stage_entered_at, c.deleted, c.deleted_at, c.created_at, c.updated_at,
	(SELECT count(*) FROM {{contact_notes}} n WHERE n.contact_id = c.contact_id)::int,
	(SELECT count(*) FROM {{contact_attachments}} a WHERE a.contact_id = c.contact_id)::int`

func scanContact(row pgx.Row, extra ...any) (Contact, error) {
	var c Contact
	dest := []any{&c.ContactID, &c.Revision, &c.FirstName, &c.LastName, &c.Email, &c.Phone, &c.Company, &c.JobTitle, &c.Tags,
		&c.PipelineID, &c.StageID, &c.StageEnteredAt, &c.Deleted, &c.DeletedAt, &c.CreatedAt, &c.UpdatedAt, &c.NoteCount, &c.AttachmentCount}
	err := row.Scan(append(dest, extra...)...)
	if c.Tags == nil {
		c.Tags = []string{}
	}
	utc(&c.StageEnteredAt, &c.CreatedAt, &c.UpdatedAt)
	if c.DeletedAt != nil {
		utc(c.DeletedAt)
	}
	return c, err
}

// utc shows times as commands answer them.
func utc(ts ...*time.Time) {
	for _, t := range ts {
		*t = t.UTC()
	}
}

// Contact is one live contact of the organization (404 for a missing, a
// soft-deleted or another organization's contact).
func (q *Queries) Contact(ctx context.Context, org, id string) (Contact, error) {
	uid, err := uuid.Parse(id)
	if err != nil {
		return Contact{}, errs.NotFound("contact")
	}
	sql, err := q.sql(ctx, `SELECT `+contactSelect+` FROM {{contacts}} c WHERE c.contact_id=$1 AND c.organization_id=$2 AND NOT c.deleted`)
	if err != nil {
		return Contact{}, err
	}
	c, err := scanContact(q.pool.QueryRow(ctx, sql, uid, org))
	if errors.Is(err, pgx.ErrNoRows) {
		return Contact{}, errs.NotFound("contact")
	}
	return c, err
}

// live checks a contact exists for the organization and is not deleted.
func (q *Queries) live(ctx context.Context, org, id string) (uuid.UUID, error) {
	uid, err := uuid.Parse(id)
	if err != nil {
		return uuid.Nil, errs.NotFound("contact")
	}
	sql, err := q.sql(ctx, `SELECT EXISTS (SELECT 1 FROM {{contacts}} WHERE contact_id=$1 AND organization_id=$2 AND NOT deleted)`)
	if err != nil {
		return uuid.Nil, err
	}
	var ok bool
	if err := q.pool.QueryRow(ctx, sql, uid, org).Scan(&ok); err != nil {
		return uuid.Nil, err
	}
	if !ok {
		return uuid.Nil, errs.NotFound("contact")
	}
	return uid, nil
}

// Filter selects contacts: a search, a stage, the live ones or the
// soft-deleted ones; a page of Limit after Cursor.
type Filter struct {
	Query   string
	StageID string
	Deleted bool
	Cursor  string
	Limit   int
}

// Page is one page of contacts; NextCursor is null on the last.
type Page struct {
	Contacts   []Contact `json:"contacts"`
	NextCursor *string   `json:"next_cursor"`
}

// Contacts lists contacts: newest first, or, with a search, best match
// first (search). Cursors are keyset positions (the last contact's id, and
// for a search its rank, or that it was a part-of-a-word match), so pages
// neither repeat nor skip a contact while the list does not change, however
// deep the page.
func (q *Queries) Contacts(ctx context.Context, org string, f Filter) (Page, error) {
	if f.Limit == 0 {
		f.Limit = 50
	}
	cur, err := decodeCursor(f.Cursor)
	if err != nil {
		return Page{}, err
	}
	w := &where{args: []any{org, f.Deleted}, parts: []string{"c.organization_id=$1", "c.deleted=$2"}}
	if f.StageID != "" {
		w.add("c.stage_id=$%d", f.StageID)
	}
	s := newSearch(f.Query)
	if s.empty() {
		if f.Query != "" && strings.TrimSpace(f.Query) != "" {
			return Page{Contacts: []Contact{}}, nil // nothing searchable in it
		}
		if !cur.plain() {
			return Page{}, badCursor()
		}
		return q.newest(ctx, w, cur, f.Limit)
	}
	if cur.ID != "" && (cur.plain() || cur.Rank != nil && !cur.Near && s.terms == "" || (cur.Part || cur.Near) && s.needle == "") {
		return Page{}, badCursor() // not a cursor of this search
	}
	return q.ranked(ctx, w, s, cur, f.Limit)
}

func (q *Queries) newest(ctx context.Context, w *where, cur cursor, limit int) (Page, error) {
	if cur.ID != "" {
		w.add("c.contact_id < $%d::uuid", cur.ID)
	}
	w.args = append(w.args, limit+1)
	rows, err := q.list(ctx, nil, `SELECT `+contactSelect+`, 0::float4 FROM {{contacts}} c WHERE `+w.sql()+
		fmt.Sprintf(` ORDER BY c.contact_id DESC LIMIT $%d`, len(w.args)), w.args)
	if err != nil {
		return Page{}, err
	}
	return pageOf(rows, limit, func(f found) cursor { return cursor{ID: f.ContactID} }), nil
}

// ranked is a page of a search: its word matches after the cursor, best
// first, then, when those run out before the page is full, its
// part-of-a-word matches, oldest first (search).
func (q *Queries) ranked(ctx context.Context, w *where, s search, cur cursor, limit int) (Page, error) {
	gen, err := q.reader.Active(ctx, Name)
	if err != nil {
		return Page{}, err
	}
	names := projections.Resolver(Projection{}, gen)
	common, err := q.words.get(ctx, q, projections.TableName("contacts", gen))
	if err != nil {
		return Page{}, err
	}
	s = s.keys(common)
	var out []found
	if s.terms != "" && !cur.Part && !cur.Near {
		if out, err = q.wordMatches(ctx, names, w.clone(), s, cur, limit+1); err != nil {
			return Page{}, err
		}
	}
	if s.needle != "" && len(out) <= limit && !cur.Near {
		after := ""
		if cur.Part {
			after = cur.ID
		}
		parts, err := q.partMatches(ctx, names, w.clone(), s, after, limit+1-len(out))
		if err != nil {
			return Page{}, err
		}
		out = append(out, parts...)
	}
	// The last resort: a search that finds nothing at all, the way it is
	// typed, lists the names and emails spelled like it ("smiht": Smith).
	if s.needle != "" && (cur.Near || cur.ID == "" && len(out) == 0) {
		if out, err = q.nearMatches(ctx, names, w.clone(), s, cur, limit+1); err != nil {
			return Page{}, err
		}
	}
	return pageOf(out, limit, func(f found) cursor {
		switch {
		case f.near:
			return cursor{ID: f.ContactID, Rank: &f.rank, Near: true}
		case f.part:
			return cursor{ID: f.ContactID, Part: true}
		}
		return cursor{ID: f.ContactID, Rank: &f.rank}
	}), nil
}

// NearThreshold is how alike a query's word and a word of the names and
// emails must be to stand for it: pg_trgm's similarity (shared trigrams
// over all trigrams of the two): "smiht" is 0.33 like "smith", "jonna"
// 0.44 like "joanna", "nunes" 0.5 like "nunez". It is pg_trgm's default
// threshold of its % operator, which the vocabulary's index answers.
const NearThreshold = 0.3

// nearAlternatives bounds the vocabulary words that stand for one word of
// a query (the most alike).
const nearAlternatives = 5

// nearMatches reads n similar-spelling matches after the cursor, most alike
// first. Each word of the query (its runs of letters, from three) is
// looked up in the organization's vocabulary (contact_names: the words
// contacts are searched by, trigram-indexed): the few most alike words
// stand for it. The contacts holding, for every word of the query, one of its
// stand-ins (as a prefix, as a search term) are found by the full-text
// index, the first MaxMatches of them ranked by how alike their words are
// (the sum over the query's words of the best stand-in's similarity).
// Looking words up in a vocabulary of a few thousand, rather than the
// trigrams of every contact, keeps a typo as fast as a search.
func (q *Queries) nearMatches(ctx context.Context, names *strings.Replacer, w *where, s search, cur cursor, n int) ([]found, error) {
	rows, err := q.pool.Query(ctx, names.Replace(`SELECT q.n, v.word, similarity(v.word, q.w)::float4
		FROM regexp_split_to_table(contacts_fold($2), '[^[:alpha:]]+') WITH ORDINALITY AS q(w, n)
		LEFT JOIN LATERAL (SELECT v.word FROM {{contact_names}} v WHERE v.organization_id = $1 AND v.word % q.w
			AND similarity(v.word, q.w) >= $3 ORDER BY similarity(v.word, q.w) DESC, v.word LIMIT $4) v ON true
		WHERE length(q.w) >= 3 ORDER BY q.n`), w.args[0], s.needle, NearThreshold, nearAlternatives)
	if err != nil {
		return nil, err
	}
	var ns []int32
	var words []string
	var sims []float32
	missing := false
	for rows.Next() {
		var k int32
		var word *string
		var sim *float32
		if err := rows.Scan(&k, &word, &sim); err != nil {
			rows.Close()
			return nil, err
		}
		if word == nil {
			missing = true // a word of the query nothing is spelled like
			continue
		}
		ns, words, sims = append(ns, k), append(words, *word), append(sims, *sim)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if missing || len(words) == 0 {
		return nil, nil
	}
	// Every word of the query, as one of its stand-ins: (a | b) & (c | d);
	// a row's rank is, summed over the query's words, the similarity of
	// the most alike stand-in it holds (CASE expressions over the row's
	// tsvector: a subquery per row cost more than the search).
	var groups, ranks []string
	for i := 0; i < len(words); {
		var alts, best []string
		j := i
		for ; j < len(words) && ns[j] == ns[i]; j++ {
			term := "'" + words[j] + "':*" // runs of letters: nothing to escape
			alts = append(alts, term)
			w.args = append(w.args, term)
			best = append(best, fmt.Sprintf("CASE WHEN c.search @@ $%d::tsquery THEN %s END", len(w.args),
				strconv.FormatFloat(float64(sims[j]), 'f', 6, 32)))
		}
		groups = append(groups, "("+strings.Join(alts, " | ")+")")
		ranks = append(ranks, "COALESCE(GREATEST("+strings.Join(best, ", ")+"), 0)")
		i = j
	}
	w.args = append(w.args, strings.Join(groups, " & "))
	k := len(w.args)
	w.parts = append(w.parts, "c.search @@ q.tsq")
	cond := ""
	if cur.ID != "" {
		w.args = append(w.args, *cur.Rank, cur.ID)
		cond = fmt.Sprintf(` WHERE (m.rank < $%d OR (m.rank = $%d AND m.contact_id > $%d::uuid))`, len(w.args)-1, len(w.args)-1, len(w.args))
	}
	w.args = append(w.args, n)
	out, err := q.list(ctx, names, `WITH m AS (SELECT m.contact_id, m.rank FROM (
			SELECT c.contact_id, (`+strings.Join(ranks, " + ")+`)::float4 AS rank
			FROM {{contacts}} c, `+fmt.Sprintf(`(SELECT to_tsquery('simple', $%d) AS tsq) q WHERE `, k)+w.sql()+
		` LIMIT `+fmt.Sprint(MaxMatches)+`) m`+cond+fmt.Sprintf(` ORDER BY m.rank DESC, m.contact_id LIMIT $%d)
		SELECT `+contactSelect+`, m.rank FROM m JOIN {{contacts}} c ON c.contact_id = m.contact_id ORDER BY m.rank DESC, c.contact_id`, len(w.args)),
		w.args)
	for i := range out {
		out[i].near = true
	}
	return out, err
}

// wordMatches reads n word matches after the cursor, best first: the first
// MaxMatches the index finds are ranked, the page sorted out of them, and
// only the page's rows read whole.
func (q *Queries) wordMatches(ctx context.Context, names *strings.Replacer, w *where, s search, cur cursor, n int) ([]found, error) {
	from := s.query(w)
	w.parts = append(w.parts, s.wordsOnly())
	after := ""
	if cur.ID != "" {
		w.args = append(w.args, *cur.Rank, cur.ID)
		n := len(w.args)
		after = fmt.Sprintf(` WHERE (m.rank < $%d OR (m.rank = $%d AND m.contact_id > $%d::uuid))`, n-1, n-1, n)
	}
	w.args = append(w.args, n)
	return q.list(ctx, names, `WITH m AS (
		SELECT m.contact_id, m.rank FROM (
			SELECT c.contact_id, ts_rank(c.search, q.tsq)::float4 AS rank FROM {{contacts}} c, `+from+` WHERE `+w.sql()+
		` LIMIT `+fmt.Sprint(MaxMatches)+`) m`+after+fmt.Sprintf(` ORDER BY m.rank DESC, m.contact_id LIMIT $%d)
		SELECT `+contactSelect+`, m.rank FROM m JOIN {{contacts}} c ON c.contact_id = m.contact_id ORDER BY m.rank DESC, c.contact_id`, len(w.args)),
		w.args)
}

// partMatches reads n part-of-a-word matches that are not word matches,
// after the id after ("" from the first), oldest first, out of the first
// MaxMatches the index finds.
func (q *Queries) partMatches(ctx context.Context, names *strings.Replacer, w *where, s search, after string, n int) ([]found, error) {
	from := s.query(w)
	w.parts = append(w.parts, s.partOnly())
	cond := ""
	if after != "" {
		w.args = append(w.args, after)
		cond = fmt.Sprintf(` WHERE m.contact_id > $%d::uuid`, len(w.args))
	}
	w.args = append(w.args, n)
	parts, err := q.list(ctx, names, `WITH m AS (
		SELECT m.contact_id FROM (
			SELECT c.contact_id FROM {{contacts}} c, `+from+` WHERE `+w.sql()+` LIMIT `+fmt.Sprint(MaxMatches)+`) m`+cond+
		fmt.Sprintf(` ORDER BY m.contact_id LIMIT $%d)
		SELECT `+contactSelect+`, 0::float4 FROM m JOIN {{contacts}} c ON c.contact_id = m.contact_id ORDER BY c.contact_id`, len(w.args)),
		w.args)
	for i := range parts {
		parts[i].part = true
	}
	return parts, err
}

// found is a contact a list query read, with its rank in a search.
type found struct {
	Contact
	rank float32
	part bool // a part-of-a-word match of a search
	near bool // a similar-spelling match of a search
}

// list runs a list query whose rows are contactSelect and a rank, its
// tables named by names (nil: the active generation's).
func (q *Queries) list(ctx context.Context, names *strings.Replacer, query string, args []any) ([]found, error) {
	var sql string
	var err error
	if names != nil {
		sql = names.Replace(query)
	} else if sql, err = q.sql(ctx, query); err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []found
	for rows.Next() {
		var f found
		if f.Contact, err = scanContact(rows, &f.rank); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// pageOf is the page of a list that asked for limit+1 rows: the extra row
// says there is a next page, whose cursor is the last row shown.
func pageOf(rows []found, limit int, at func(found) cursor) Page {
	out := Page{Contacts: make([]Contact, 0, min(len(rows), limit))}
	for _, f := range rows[:min(len(rows), limit)] {
		out.Contacts = append(out.Contacts, f.Contact)
	}
	if len(rows) > limit {
		next := at(rows[limit-1]).encode()
		out.NextCursor = &next
	}
	return out
}

// where collects a query's conditions and their arguments.
type where struct {
	parts []string
	args  []any
}

// add appends a condition whose %d is the next argument's number.
func (w *where) add(format string, arg any) {
	w.args = append(w.args, arg)
	w.parts = append(w.parts, fmt.Sprintf(format, len(w.args)))
}

func (w *where) sql() string { return strings.Join(w.parts, " AND ") }

// clone is a copy to add to.
func (w *where) clone() *where {
	return &where{parts: slices.Clone(w.parts), args: slices.Clone(w.args)}
}
