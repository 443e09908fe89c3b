package contacts

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
)

// UpdateContact is contacts.update: the body replaces the contact's
// editable members (PUT).
type UpdateContact struct {
	ID string `json:"id"`
	ContactInput
}

func (h *Handlers) UpdateContact(ctx context.Context, m commands.Meta, in UpdateContact) (commands.Result[domain.Contact], error) {
	now := h.now()
	return h.changeContact(ctx, m, in.ID, domain.ContactUpdated, func(c domain.Contact) (domain.Change, bool, error) {
		return c.Update(in.fields(), now)
	})
}
