package gateway

import (
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// organizationArea: the organizations the identity service provisioned.
var organizationArea = area{
	tables: []string{"gateway_organizations"},
	schema: []string{
		`CREATE TABLE IF NOT EXISTS {{gateway_organizations}} (
			organization_id text PRIMARY KEY, name text NOT NULL, slug text NOT NULL, billing_email text,
			provisioned_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
	},
	reducers: ignored(projections.Reducers{
		domain.OrganizationProvisioned: projections.On(organizationSet),
		domain.OrganizationUpdated:     projections.On(organizationSet),
	}),
}

func organizationSet(_ eventstore.Event, p domain.OrganizationV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`INSERT INTO {{gateway_organizations}} (organization_id, name, slug, billing_email,
		provisioned_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT (organization_id) DO UPDATE SET name = EXCLUDED.name,
		slug = EXCLUDED.slug, billing_email = EXCLUDED.billing_email, updated_at = EXCLUDED.updated_at`,
		p.OrganizationID, p.Name, p.Slug, p.BillingEmail, p.ProvisionedAt, p.UpdatedAt)}, nil
}
