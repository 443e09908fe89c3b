package identity

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

type CreateOrganization struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

func (h *Handlers) CreateOrganization(ctx context.Context, m commands.Meta, in CreateOrganization) (commands.Result[domain.OrganizationCreatedV1], error) {
	id := uuid.Must(uuid.NewV7()).String()
	m.OrganizationID = id // an organization is its own tenant
	return commands.Run(ctx, h.store, m, domain.StreamOrganization, id,
		func(history []event.Recorded) ([]event.Change, domain.OrganizationCreatedV1, error) {
			o, err := domain.LoadOrganization(history)
			if err != nil {
				return nil, domain.OrganizationCreatedV1{}, err
			}
			changes, err := o.Create(id, in.Name, in.Slug, h.now())
			if err != nil {
				return nil, domain.OrganizationCreatedV1{}, err
			}
			return changes, changes[0].Payload.(domain.OrganizationCreatedV1), nil
		})
}
