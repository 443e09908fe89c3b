package contacts

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// onNote runs a command on a note of a live contact: the note's stream is
// locked, the contact's row is read and held (FOR SHARE: a delete of the
// contact waits for the note, or the note finds the contact gone), and act
// decides from the note's history. A note of another contact, or of
// another organization, is not found.
func (h *Handlers) onNote(ctx context.Context, m commands.Meta, contact, noteID string,
	act func(n domain.Note, contactID string) ([]event.Change, domain.Note, error)) (commands.Result[domain.Note], error) {
	cid, err := contactID(contact)
	if err != nil {
		return commands.Result[domain.Note]{}, err
	}
	nid, err := uuid.Parse(noteID)
	if err != nil {
		return commands.Result[domain.Note]{}, errs.NotFound("note")
	}
	live := false
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		c, _, err := loadContact(ctx, tx, m.OrganizationID, cid, forShare)
		live = c.Live()
		return err
	}
	return commands.Run(ctx, h.store, m, domain.StreamNote, nid.String(),
		func(history []event.Recorded) ([]event.Change, domain.Note, error) {
			if !live {
				return nil, domain.Note{}, errs.NotFound("contact")
			}
			note, err := domain.LoadNote(history)
			if err != nil {
				return nil, domain.Note{}, err
			}
			return act(note, cid.String())
		}, commands.Prepared(prepare))
}
