package contacts

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/event"
)

// UpdateNote is notes.update: a new body.
type UpdateNote struct {
	ContactID string `json:"contactId"`
	NoteID    string `json:"noteId"`
	Body      string `json:"body"`
}

func (h *Handlers) UpdateNote(ctx context.Context, m commands.Meta, in UpdateNote) (commands.Result[domain.Note], error) {
	now := h.now()
	return h.onNote(ctx, m, in.ContactID, in.NoteID, func(n domain.Note, contactID string) ([]event.Change, domain.Note, error) {
		return n.Edit(contactID, in.Body, now)
	})
}
