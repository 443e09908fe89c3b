package contacts

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
)

// MoveContact is pipelines.move: the contact enters a stage of its
// pipeline (the organization's default one); the move (from, to, when,
// who) is recorded in its history.
type MoveContact struct {
	ContactID string `json:"contactId"`
	StageID   string `json:"stageId"`
}

func (h *Handlers) MoveContact(ctx context.Context, m commands.Meta, in MoveContact) (commands.Result[domain.Contact], error) {
	now := h.now()
	p := domain.DefaultPipeline(m.OrganizationID)
	return h.changeContact(ctx, m, in.ContactID, domain.ContactMoved, func(c domain.Contact) (domain.Change, bool, error) {
		return c.MoveTo(p, in.StageID, now)
	})
}
