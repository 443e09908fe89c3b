package contacts

import (
	"context"
	"errors"

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

const noteSelect = `x.note_id::text, x.contact_id::text, x.body, x.author_id, x.author_type, x.created_at, x.updated_at`

func scanNote(row pgx.Row) (domain.Note, error) {
	var n domain.Note
	err := row.Scan(&n.NoteID, &n.ContactID, &n.Body, &n.Author.ID, &n.Author.Type, &n.CreatedAt, &n.UpdatedAt)
	utc(&n.CreatedAt, &n.UpdatedAt)
	return n, err
}

var notes = child[domain.Note]{table: "{{contact_notes}}", id: "note_id", columns: noteSelect, scan: scanNote,
	idOf: func(n domain.Note) string { return n.NoteID }}

// Notes lists a live contact's notes (404 for any other contact).
func (q *Queries) Notes(ctx context.Context, org, contactID, after string, limit int) (NotePage, error) {
	list, next, err := notes.page(ctx, q, org, contactID, after, limit)
	return NotePage{Notes: list, NextCursor: next}, err
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
	sql, err := q.sql(ctx, `SELECT `+noteSelect+` FROM {{contact_notes}} x WHERE x.note_id=$1 AND x.contact_id=$2 AND x.organization_id=$3`)
	if err != nil {
		return domain.Note{}, err
	}
	n, err := scanNote(q.pool.QueryRow(ctx, sql, nid, cid, org))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Note{}, errs.NotFound("note")
	}
	return n, err
}
