package contacts

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/errs"
)

// NotePage is one page of a contact's notes, newest first.
type NotePage struct {
	Notes      []domain.Note `json:"notes"`
	NextCursor *string       `json:"next_cursor"`
}

const noteSelect = `n.note_id::text, n.contact_id::text, n.body, n.author_id, n.author_type, n.created_at, n.updated_at`

func scanNote(row pgx.Row) (domain.Note, error) {
	var n domain.Note
	err := row.Scan(&n.NoteID, &n.ContactID, &n.Body, &n.Author.ID, &n.Author.Type, &n.CreatedAt, &n.UpdatedAt)
	utc(&n.CreatedAt, &n.UpdatedAt)
	return n, err
}

// Notes lists a live contact's notes (404 for any other contact).
func (q *Queries) Notes(ctx context.Context, org, contactID, after string, limit int) (NotePage, error) {
	cid, err := q.live(ctx, org, contactID)
	if err != nil {
		return NotePage{}, err
	}
	cur, err := decodeCursor(after)
	if err != nil || cur.Rank != nil {
		return NotePage{}, badCursor()
	}
	if limit == 0 {
		limit = 50
	}
	w := &where{args: []any{cid, org}, parts: []string{"n.contact_id=$1", "n.organization_id=$2"}}
	if cur.ID != "" {
		w.add("n.note_id < $%d::uuid", cur.ID)
	}
	w.args = append(w.args, limit+1)
	sql, err := q.sql(ctx, `SELECT `+noteSelect+` FROM {{contact_notes}} n WHERE `+w.sql()+fmt.Sprintf(` ORDER BY n.note_id DESC LIMIT $%d`, len(w.args)))
	if err != nil {
		return NotePage{}, err
	}
	rows, err := q.pool.Query(ctx, sql, w.args...)
	if err != nil {
		return NotePage{}, err
	}
	notes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Note, error) { return scanNote(r) })
	if err != nil {
		return NotePage{}, err
	}
	out := NotePage{Notes: notes}
	if out.Notes == nil {
		out.Notes = []domain.Note{}
	}
	if len(notes) > limit {
		out.Notes = notes[:limit]
		next := cursor{ID: notes[limit-1].NoteID}.encode()
		out.NextCursor = &next
	}
	return out, nil
}

// Note is one note of a live contact.
func (q *Queries) Note(ctx context.Context, org, contactID, noteID string) (domain.Note, error) {
	cid, err := q.live(ctx, org, contactID)
	if err != nil {
		return domain.Note{}, err
	}
	nid, err := uuid.Parse(noteID)
	if err != nil {
		return domain.Note{}, errs.NotFound("note")
	}
	sql, err := q.sql(ctx, `SELECT `+noteSelect+` FROM {{contact_notes}} n WHERE n.note_id=$1 AND n.contact_id=$2 AND n.organization_id=$3`)
	if err != nil {
		return domain.Note{}, err
	}
	n, err := scanNote(q.pool.QueryRow(ctx, sql, nid, cid, org))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Note{}, errs.NotFound("note")
	}
	return n, err
}
