package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// ProvisionOrganization is organization.provision: the identity service
// tells the gateway of an organization, once (a repeat changes nothing; new
// members are recorded).
type ProvisionOrganization struct {
	OrganizationID string  `json:"organization_id"`
	Name           string  `json:"name"`
	Slug           string  `json:"slug"`
	BillingEmail   *string `json:"billing_email"`
}

// ProvisionOrganization runs on the named organization's stream (the
// caller is a service identity, without an organization of its own).
func (h *Handlers) ProvisionOrganization(ctx context.Context, m commands.Meta, in ProvisionOrganization) (commands.Result[domain.OrganizationV1], error) {
	m.OrganizationID = in.OrganizationID
	return run(ctx, h, m, domain.StreamOrganization, domain.OrganizationStreamID(in.OrganizationID), domain.LoadOrganization,
		func(o *domain.Organization) ([]event.Change, error) {
			return o.Provision(domain.ProvisionInput{OrganizationID: in.OrganizationID, Name: in.Name, Slug: in.Slug,
				BillingEmail: in.BillingEmail}, h.now())
		}, func(o *domain.Organization) domain.OrganizationV1 { return o.State })
}
