package contacts

import (
	"context"
	"errors"
	"fmt"
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
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader, now func() time.Time) *Queries {
	if now == nil {
		now = time.Now
	}
	return &Queries{pool: pool, reader: reader, now: now}
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
// first. Cursors are keyset positions (the last contact's id, and its rank
// for a search), so pages neither repeat nor skip a contact while the list
// does not change, however deep the page.
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
		return q.newest(ctx, w, cur, f.Limit)
	}
	if cur.ID != "" && cur.Rank == nil {
		return Page{}, badCursor()
	}
	return q.ranked(ctx, w, s, cur, f.Limit)
}

func (q *Queries) newest(ctx context.Context, w *where, cur cursor, limit int) (Page, error) {
	if cur.Rank != nil {
		return Page{}, badCursor()
	}
	if cur.ID != "" {
		w.add("c.contact_id < $%d::uuid", cur.ID)
	}
	w.args = append(w.args, limit+1)
	return q.page(ctx, `SELECT `+contactSelect+` FROM {{contacts}} c WHERE `+w.sql()+
		fmt.Sprintf(` ORDER BY c.contact_id DESC LIMIT $%d`, len(w.args)), w.args, limit, false)
}

func (q *Queries) ranked(ctx context.Context, w *where, s search, cur cursor, limit int) (Page, error) {
	inner, rank := s.clauses(w)
	outer := ""
	if cur.ID != "" {
		w.args = append(w.args, *cur.Rank, cur.ID)
		n := len(w.args)
		outer = fmt.Sprintf(` WHERE (m.rank < $%d OR (m.rank = $%d AND m.contact_id > $%d::uuid))`, n-1, n-1, n)
	}
	w.args = append(w.args, limit+1)
	// The first MaxMatches matches are ranked, the page sorted out of them,
	// and only the page's rows read whole.
	return q.page(ctx, `WITH m AS (
		SELECT m.contact_id, m.rank FROM (
			SELECT c.contact_id, (`+rank+`)::float4 AS rank FROM {{contacts}} c, `+inner+` WHERE `+w.sql()+
		` LIMIT `+fmt.Sprint(MaxMatches)+`) m`+outer+fmt.Sprintf(` ORDER BY m.rank DESC, m.contact_id LIMIT $%d)
		SELECT `+contactSelect+`, m.rank FROM m JOIN {{contacts}} c ON c.contact_id = m.contact_id ORDER BY m.rank DESC, c.contact_id`, len(w.args)),
		w.args, limit, true)
}

// page runs a list query that asked for limit+1 rows: the extra row says
// there is a next page, whose cursor is the last row shown.
func (q *Queries) page(ctx context.Context, query string, args []any, limit int, ranked bool) (Page, error) {
	sql, err := q.sql(ctx, query)
	if err != nil {
		return Page{}, err
	}
	rows, err := q.pool.Query(ctx, sql, args...)
	if err != nil {
		return Page{}, err
	}
	defer rows.Close()
	out := Page{Contacts: []Contact{}}
	var ranks []float32
	for rows.Next() {
		var rank float32
		var extra []any
		if ranked {
			extra = []any{&rank}
		}
		c, err := scanContact(rows, extra...)
		if err != nil {
			return Page{}, err
		}
		out.Contacts, ranks = append(out.Contacts, c), append(ranks, rank)
	}
	if err := rows.Err(); err != nil {
		return Page{}, err
	}
	if len(out.Contacts) > limit {
		out.Contacts = out.Contacts[:limit]
		last := cursor{ID: out.Contacts[limit-1].ContactID}
		if ranked {
			last.Rank = &ranks[limit-1]
		}
		next := last.encode()
		out.NextCursor = &next
	}
	return out, nil
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
