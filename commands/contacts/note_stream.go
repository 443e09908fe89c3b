package contacts

import (
	"context"
	"errors"

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
	return h.onNoteOf(ctx, m, contact, noteID, domain.Contact.Live, act)
}

// onNoteOf is onNote for a contact accept takes (a soft-deleted one too,
// for an erasure).
func (h *Handlers) onNoteOf(ctx context.Context, m commands.Meta, contact, noteID string, accept func(domain.Contact) bool,
	act func(n domain.Note, contactID string) ([]event.Change, domain.Note, error)) (commands.Result[domain.Note], error) {
	cid, err := contactID(contact)
	if err != nil {
		return commands.Result[domain.Note]{}, err
	}
	nid, err := uuid.Parse(noteID)
	if err != nil {
		return commands.Result[domain.Note]{}, errs.NotFound("note")
	}
	// The contact first: an unknown contact is the answer whatever the note
	// id, as it is for a contact of another organization.
	if c, _, err := loadContact(ctx, h.pool, m.OrganizationID, cid, ""); err != nil || !accept(c) {
		if err == nil {
			err = errs.NotFound("contact")
		}
		return commands.Result[domain.Note]{}, err
	}
	live := false
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		c, _, err := loadContact(ctx, tx, m.OrganizationID, cid, forShare)
		live = accept(c)
		return err
	}
	res, err := commands.Run(ctx, h.store, m, domain.StreamNote, nid.String(),
		func(history []event.Recorded) ([]event.Change, domain.Note, error) {
			if !live {
				return nil, domain.Note{}, errContactGone
			}
			note, err := domain.LoadNote(history)
			if err != nil {
				return nil, domain.Note{}, err
			}
			return act(note, cid.String())
		}, commands.Prepared(prepare))
	if errors.Is(err, errContactGone) {
		return res, errs.NotFound("contact")
	}
	return res, missing(err, "note")
}

// errContactGone: the contact was deleted between the check and the command.
var errContactGone = errs.NotFound("contact")
