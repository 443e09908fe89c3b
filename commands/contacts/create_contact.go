package contacts

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// CreateContact is contacts.create.
type CreateContact struct {
	ContactInput
	// StageID is the stage of the default pipeline it starts in (its first
	// when empty).
	StageID string `json:"stageId"`
}

// ContactInput are a contact's editable members as the API names them.
type ContactInput struct {
	FirstName string   `json:"firstName"`
	LastName  string   `json:"lastName"`
	Email     string   `json:"email"`
	Phone     string   `json:"phone"`
	Company   string   `json:"company"`
	JobTitle  string   `json:"jobTitle"`
	Tags      []string `json:"tags"`
}

func (in ContactInput) fields() domain.Fields {
	return domain.Fields{FirstName: in.FirstName, LastName: in.LastName, Email: in.Email, Phone: in.Phone,
		Company: in.Company, JobTitle: in.JobTitle, Tags: in.Tags}
}

func (h *Handlers) CreateContact(ctx context.Context, m commands.Meta, in CreateContact) (commands.Result[domain.Contact], error) {
	id := uuid.Must(uuid.NewV7()).String()
	p := domain.DefaultPipeline(m.OrganizationID)
	return commands.RunOutcome(ctx, h.store, m, domain.StreamContact, id,
		func([]event.Recorded) (commands.Outcome[domain.Contact], error) {
			change, err := domain.NewContact(id, in.fields(), p, in.StageID, h.now())
			if err != nil {
				return commands.Outcome[domain.Contact]{}, err
			}
			row, err := saveContacts(m.OrganizationID, change.Contact)
			if err != nil {
				return commands.Outcome[domain.Contact]{}, err
			}
			return commands.Outcome[domain.Contact]{Events: []event.Change{event.New(domain.ContactCreated, change)},
				Value: change.Contact, Writes: []eventstore.Write{row}}, nil
		}, commands.Snapshots(domain.SnapshotSchema))
}
