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

// AttachmentPage is one page of a contact's attachments, newest first.
type AttachmentPage struct {
	Attachments []domain.Attachment `json:"attachments"`
	NextCursor  *string             `json:"next_cursor"`
}

// StoredAttachment is an attachment and where its bytes are.
type StoredAttachment struct {
	domain.Attachment
	ObjectKey string
}

const attachmentSelect = `a.attachment_id::text, a.contact_id::text, a.filename, a.content_type, a.size, a.sha256,
	a.uploaded_by_id, a.uploaded_by_type, a.created_at, a.object_key`

func scanAttachment(row pgx.Row) (StoredAttachment, error) {
	var a StoredAttachment
	err := row.Scan(&a.AttachmentID, &a.ContactID, &a.Filename, &a.ContentType, &a.Size, &a.SHA256,
		&a.UploadedBy.ID, &a.UploadedBy.Type, &a.CreatedAt, &a.ObjectKey)
	utc(&a.CreatedAt)
	return a, err
}

// Attachments lists a live contact's attachments (404 for any other contact).
func (q *Queries) Attachments(ctx context.Context, org, contactID, after string, limit int) (AttachmentPage, error) {
	cid, err := q.live(ctx, org, contactID)
	if err != nil {
		return AttachmentPage{}, err
	}
	cur, err := decodeCursor(after)
	if err != nil || cur.Rank != nil {
		return AttachmentPage{}, badCursor()
	}
	if limit == 0 {
		limit = 50
	}
	w := &where{args: []any{cid, org}, parts: []string{"a.contact_id=$1", "a.organization_id=$2"}}
	if cur.ID != "" {
		w.add("a.attachment_id < $%d::uuid", cur.ID)
	}
	w.args = append(w.args, limit+1)
	sql, err := q.sql(ctx, `SELECT `+attachmentSelect+` FROM {{contact_attachments}} a WHERE `+w.sql()+
		fmt.Sprintf(` ORDER BY a.attachment_id DESC LIMIT $%d`, len(w.args)))
	if err != nil {
		return AttachmentPage{}, err
	}
	rows, err := q.pool.Query(ctx, sql, w.args...)
	if err != nil {
		return AttachmentPage{}, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (StoredAttachment, error) { return scanAttachment(r) })
	if err != nil {
		return AttachmentPage{}, err
	}
	out := AttachmentPage{Attachments: []domain.Attachment{}}
	for i, a := range list {
		if i == limit {
			next := cursor{ID: list[limit-1].AttachmentID}.encode()
			out.NextCursor = &next
			break
		}
		out.Attachments = append(out.Attachments, a.Attachment)
	}
	return out, nil
}

// Attachment is one attachment of a live contact of the organization.
func (q *Queries) Attachment(ctx context.Context, org, id string) (StoredAttachment, error) {
	aid, err := uuid.Parse(id)
	if err != nil {
		return StoredAttachment{}, errs.NotFound("attachment")
	}
	sql, err := q.sql(ctx, `SELECT `+attachmentSelect+` FROM {{contact_attachments}} a
		JOIN {{contacts}} c ON c.contact_id = a.contact_id AND NOT c.deleted
		WHERE a.attachment_id=$1 AND a.organization_id=$2`)
	if err != nil {
		return StoredAttachment{}, err
	}
	a, err := scanAttachment(q.pool.QueryRow(ctx, sql, aid, org))
	if errors.Is(err, pgx.ErrNoRows) {
		return StoredAttachment{}, errs.NotFound("attachment")
	}
	return a, err
}
