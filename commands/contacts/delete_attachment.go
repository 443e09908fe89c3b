package contacts

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// DeleteAttachment is attachments.delete: the record first, then the bytes.
type DeleteAttachment struct {
	ID string `json:"id"`
}

func (h *Handlers) DeleteAttachment(ctx context.Context, m commands.Meta, in DeleteAttachment) (commands.Result[domain.Attachment], error) {
	aid, err := uuid.Parse(in.ID)
	if err != nil {
		return commands.Result[domain.Attachment]{}, errs.NotFound("attachment")
	}
	var key string
	res, err := commands.Run(ctx, h.store, m, domain.StreamAttachment, aid.String(),
		func(history []event.Recorded) ([]event.Change, domain.Attachment, error) {
			a, err := domain.LoadAttachment(history)
			if err != nil {
				return nil, domain.Attachment{}, err
			}
			key = a.ObjectKey
			changes, err := a.Remove()
			return changes, a.Attachment, err
		})
	if err != nil {
		return res, missing(err, "attachment")
	}
	if !res.Replayed && h.objects != nil {
		// After the commit: a failure here leaves bytes nothing refers to
		// (they are listed under the organization's prefix), never a
		// record without its bytes.
		_ = h.objects.Delete(context.WithoutCancel(ctx), key)
	}
	return res, err
}
