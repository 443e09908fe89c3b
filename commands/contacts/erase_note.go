package contacts

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/event"
)

// EraseNote is notes.erase: what a note said is erased, a deleted note's
// too (a person asks to be forgotten): gone from every read, and from the
// audit history for everyone (domain.AuditRules). The contact may be
// soft-deleted; another organization's is unknown.
type EraseNote struct {
	ContactID    string `json:"contactId"`
	NoteID       string `json:"noteId"`
	Confirmation string `json:"confirmation"` // "ERASE", checked by the schema
}

func (h *Handlers) EraseNote(ctx context.Context, m commands.Meta, in EraseNote) (commands.Result[domain.NoteErasedV1], error) {
	now := h.now()
	exists := func(c domain.Contact) bool { return c.Revision > 0 }
	res, err := h.onNoteOf(ctx, m, in.ContactID, in.NoteID, exists, func(n domain.Note, contactID string) ([]event.Change, domain.Note, error) {
		changes, erased, err := n.Erase(contactID, now)
		return changes, domain.Note{NoteID: erased.NoteID, ContactID: erased.ContactID, UpdatedAt: erased.ErasedAt}, err
	})
	return commands.Result[domain.NoteErasedV1]{Value: domain.NoteErasedV1{NoteID: res.Value.NoteID, ContactID: res.Value.ContactID,
		ErasedAt: res.Value.UpdatedAt}, Position: res.Position, Replayed: res.Replayed}, err
}
