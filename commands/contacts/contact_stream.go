package contacts

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// changeContact runs a command on one contact: its stream is locked, its
// row read and locked (Prepare), decide says what changes (changed false:
// nothing), and the event and the row are written in one transaction. The
// answer is the contact after the command. Another organization's contact
// and a soft-deleted one are not found (decide refuses them).
func (h *Handlers) changeContact(ctx context.Context, m commands.Meta, id, eventType string,
	decide func(domain.Contact) (change domain.Change, changed bool, err error)) (commands.Result[domain.Contact], error) {
	uid, err := contactID(id)
	if err != nil {
		return commands.Result[domain.Contact]{}, err
	}
	var current domain.Contact
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		var err error
		current, _, err = loadContact(ctx, tx, m.OrganizationID, uid, forUpdate)
		return err
	}
	res, err := commands.RunOutcome(ctx, h.store, m, domain.StreamContact, uid.String(),
		func([]event.Recorded) (commands.Outcome[domain.Contact], error) {
			change, changed, err := decide(current)
			if err != nil || !changed {
				return commands.Outcome[domain.Contact]{Value: change.Contact}, err
			}
			row, err := saveContacts(m.OrganizationID, change.Contact)
			if err != nil {
				return commands.Outcome[domain.Contact]{}, err
			}
			return commands.Outcome[domain.Contact]{Events: []event.Change{event.New(eventType, change)}, Value: change.Contact,
				Writes: []eventstore.Write{row}}, nil
		}, commands.Prepared(prepare), commands.Snapshots(domain.SnapshotSchema))
	return res, missing(err, "contact")
}
