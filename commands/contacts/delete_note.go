package contacts

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/event"
)

// DeleteNote is notes.delete: the note is gone for good.
type DeleteNote struct {
	ContactID string `json:"contactId"`
	NoteID    string `json:"noteId"`
}

func (h *Handlers) DeleteNote(ctx context.Context, m commands.Meta, in DeleteNote) (commands.Result[domain.Note], error) {
	now := h.now()
	return h.onNote(ctx, m, in.ContactID, in.NoteID, func(n domain.Note, contactID string) ([]event.Change, domain.Note, error) {
		return n.Remove(contactID, now)
	})
}
