package contacts

import (
	"context"
	"errors"

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

const attachmentSelect = `x.attachment_id::text, x.contact_id::text, x.filename, x.content_type, x.size, x.sha256,
	x.uploaded_by_id, x.uploaded_by_type, x.created_at, x.object_key`

func scanAttachment(row pgx.Row) (StoredAttachment, error) {
	var a StoredAttachment
	err := row.Scan(&a.AttachmentID, &a.ContactID, &a.Filename, &a.ContentType, &a.Size, &a.SHA256,
		&a.UploadedBy.ID, &a.UploadedBy.Type, &a.CreatedAt, &a.ObjectKey)
	utc(&a.CreatedAt)
	return a, err
}

var attachments = child[StoredAttachment]{table: "{{contact_attachments}}", id: "attachment_id", columns: attachmentSelect,
	scan: scanAttachment, idOf: func(a StoredAttachment) string { return a.AttachmentID }}

// Attachments lists a live contact's attachments (404 for any other contact).
func (q *Queries) Attachments(ctx context.Context, org, contactID, after string, limit int) (AttachmentPage, error) {
	list, next, err := attachments.page(ctx, q, org, contactID, after, limit)
	out := AttachmentPage{Attachments: make([]domain.Attachment, len(list)), NextCursor: next}
	for i, a := range list {
		out.Attachments[i] = a.Attachment
	}
	return out, err
}

// Attachment is one attachment of a live contact of the organization.
func (q *Queries) Attachment(ctx context.Context, org, id string) (StoredAttachment, error) {
	aid, err := uuid.Parse(id)
	if err != nil {
		return StoredAttachment{}, errs.NotFound("attachment")
	}
	sql, err := q.sql(ctx, `SELECT `+attachmentSelect+` FROM {{contact_attachments}} x
		JOIN {{contacts}} c ON c.contact_id = x.contact_id AND NOT c.deleted
		WHERE x.attachment_id=$1 AND x.organization_id=$2`)
	if err != nil {
		return StoredAttachment{}, err
	}
	a, err := scanAttachment(q.pool.QueryRow(ctx, sql, aid, org))
	if errors.Is(err, pgx.ErrNoRows) {
		return StoredAttachment{}, errs.NotFound("attachment")
	}
	return a, err
}
