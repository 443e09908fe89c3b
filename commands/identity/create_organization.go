package identity

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

type CreateOrganization struct {
	Name               string `json:"name"`
	Slug               string `json:"slug"`
	DeveloperWorkspace bool   `json:"developerWorkspace"`
	// Owner becomes the first member (role owner). Empty for system-made
	// organizations whose owner is added afterwards.
	Owner string `json:"-"`
	// Administration marks the platform administration organization (only
	// platformctl bootstrap sets it; there is one).
	Administration bool `json:"-"`
	// ID is preset when the caller must know it first (register); else new.
	ID string `json:"-"`
}

// OrganizationCreated is the answer. It holds no name: command answers are
// kept for idempotent replays, and clear data must live only under its key.
type OrganizationCreated struct {
	OrganizationID     string    `json:"organization_id"`
	Slug               string    `json:"slug"`
	State              string    `json:"state"`
	Administration     bool      `json:"administration"`
	DeveloperWorkspace bool      `json:"developer_workspace"`
	CreatedAt          time.Time `json:"created_at"`
}

func (h *Handlers) CreateOrganization(ctx context.Context, m commands.Meta, in CreateOrganization) (commands.Result[OrganizationCreated], error) {
	var zero commands.Result[OrganizationCreated]
	if err := h.requireKeys(); err != nil {
		return zero, err
	}
	id := in.ID
	if id == "" {
		id = uuid.Must(uuid.NewV7()).String()
	}
	sealed, err := h.keys.Seal(ctx, id, in.Name)
	if err != nil {
		return zero, err
	}
	m.OrganizationID = id // an organization is its own tenant
	return commands.Execute(ctx, h.store, m, domain.StreamOrganization, id, domain.LoadOrganization,
		func(o *domain.Organization) ([]event.Change, error) {
			return o.Create(domain.NewOrganization{ID: id, Name: in.Name, SealedName: sealed, Slug: in.Slug,
				Administration: in.Administration, DeveloperWorkspace: in.DeveloperWorkspace, Owner: in.Owner}, h.now())
		},
		func(o *domain.Organization) OrganizationCreated {
			c := o.State()
			return OrganizationCreated{OrganizationID: id, Slug: c.Slug, State: o.Lifecycle(),
				Administration: c.Administration, DeveloperWorkspace: c.DeveloperWorkspace, CreatedAt: c.CreatedAt}
		})
}
