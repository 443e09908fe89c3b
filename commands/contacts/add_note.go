package contacts

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/event"
)

// AddNote is notes.create.
type AddNote struct {
	ID   string `json:"id"`
	Body string `json:"body"`
}

func (h *Handlers) AddNote(ctx context.Context, m commands.Meta, in AddNote) (commands.Result[domain.Note], error) {
	id := uuid.Must(uuid.NewV7()).String()
	now := h.now()
	by := domain.Author{ID: m.Actor.ID, Type: m.Actor.Type}
	return h.onNote(ctx, m, in.ID, id, func(n domain.Note, contactID string) ([]event.Change, domain.Note, error) {
		return n.Add(id, contactID, in.Body, by, now)
	})
}
