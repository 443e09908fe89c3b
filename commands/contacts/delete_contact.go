package contacts

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
)

// DeleteContact is contacts.delete: a soft delete (the deleted flag).
type DeleteContact struct {
	ID string `json:"id"`
}

func (h *Handlers) DeleteContact(ctx context.Context, m commands.Meta, in DeleteContact) (commands.Result[domain.Contact], error) {
	now := h.now()
	return h.changeContact(ctx, m, in.ID, domain.ContactDeleted, func(c domain.Contact) (domain.Change, bool, error) {
		ch, err := c.Delete(now)
		return ch, err == nil, err
	})
}
