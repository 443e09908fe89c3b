package contacts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/objectstore"
)

// AddAttachment is attachments.upload: one file on a contact.
type AddAttachment struct {
	ID string `json:"id"`
	// Filename and ContentType are what the upload declared (the type is
	// sniffed from the first bytes when it declared none or a generic one).
	Filename    string `json:"-"`
	ContentType string `json:"-"`
}

// AddAttachment stores the file, streamed and bounded (413 past
// CONTACTS_ATTACHMENT_MAX_BYTES, with nothing stored), then records it on
// the contact. The contact is checked first, so a missing one is 404
// before anything is read; a file whose record fails is deleted again.
func (h *Handlers) AddAttachment(ctx context.Context, m commands.Meta, in AddAttachment, file io.Reader) (commands.Result[domain.Attachment], error) {
	var none commands.Result[domain.Attachment]
	if h.objects == nil {
		return none, errs.Unavailable("contacts: no object store for attachments", nil)
	}
	cid, err := contactID(in.ID)
	if err != nil {
		return none, err
	}
	if c, found, err := loadContact(ctx, h.pool, m.OrganizationID, cid, ""); err != nil || !found || !c.Live() {
		if err == nil {
			err = errs.NotFound("contact")
		}
		return none, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	key := objectKey(m.OrganizationID, id)
	ct, body, err := sniff(in.ContentType, file)
	if err != nil {
		return none, objectError(err, h.cfg.AttachmentMaxBytes)
	}
	sum := sha256.New()
	info, err := h.objects.Put(ctx, key, io.TeeReader(body, sum), objectstore.PutOptions{
		ContentType: ct, MaxBytes: h.cfg.AttachmentMaxBytes})
	if err != nil {
		return none, objectError(err, h.cfg.AttachmentMaxBytes)
	}
	rec := domain.AttachmentV1{ObjectKey: key, Attachment: domain.Attachment{AttachmentID: id, ContactID: cid.String(),
		Filename: domain.CleanFilename(in.Filename), ContentType: info.ContentType, Size: info.Size, SHA256: hex.EncodeToString(sum.Sum(nil)),
		UploadedBy: domain.Author{ID: m.Actor.ID, Type: m.Actor.Type}, CreatedAt: h.now()}}
	live := false
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		c, _, err := loadContact(ctx, tx, m.OrganizationID, cid, forShare)
		live = c.Live()
		return err
	}
	res, err := commands.Run(ctx, h.store, m, domain.StreamAttachment, id,
		func(history []event.Recorded) ([]event.Change, domain.Attachment, error) {
			if !live {
				return nil, domain.Attachment{}, errs.NotFound("contact")
			}
			a, err := domain.LoadAttachment(history)
			if err != nil {
				return nil, domain.Attachment{}, err
			}
			changes, err := a.Add(rec)
			return changes, rec.Attachment, err
		}, commands.Prepared(prepare))
	if err != nil || res.Replayed {
		// Not recorded (or recorded by the first request with this
		// Idempotency-Key, under another key): these bytes belong to nothing.
		_ = h.objects.Delete(context.WithoutCancel(ctx), key)
	}
	return res, err
}

// objectKey is where an attachment's bytes are: the organization's
// namespace, then the context's.
func objectKey(org, attachmentID string) string { return org + "/contacts/" + attachmentID }

// objectError turns the object store's kinds into the API's. A body that
// failed to arrive (413 past the request's bound, 408, a malformed upload)
// stays the request body's own error: it is the cause the store wrapped.
func objectError(err error, limit int64) error {
	var stored *objectstore.Error
	switch {
	case objectstore.KindOf(err) == objectstore.KindTooLarge:
		return errs.TooLarge("payload_too_large", "the file is larger than "+strconv.FormatInt(limit, 10)+" bytes; nothing was stored")
	case objectstore.KindOf(err) == objectstore.KindUnsupportedType:
		return errs.InvalidField("/file", "the file's content type is not a media type (type/subtype)")
	case objectstore.KindOf(err) == objectstore.KindNotFound:
		return errs.NotFound("attachment")
	case objectstore.KindOf(err) == objectstore.KindUnavailable:
		return errs.Unavailable("the object store is unavailable", err)
	case errors.As(err, &stored) && stored.Err != nil:
		return err
	case objectstore.KindOf(err) != "":
		return errs.InvalidField("/file", "the file could not be stored as sent")
	}
	return err // the request body's own (413, 408, a client that left), or a fault
}

// ObjectError is objectError for reads (no size limit applies).
func ObjectError(err error) error { return objectError(err, 0) }

// sniff reads the first bytes of a file: the type when the upload declared
// none (or application/octet-stream), and the whole file again as a reader.
func sniff(declared string, file io.Reader) (string, io.Reader, error) {
	head := make([]byte, 512)
	n, err := io.ReadFull(file, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", nil, err
	}
	head = head[:n]
	if declared == "" || declared == objectstore.DefaultContentType {
		declared = http.DetectContentType(head)
	}
	return declared, io.MultiReader(bytes.NewReader(head), file), nil
}
