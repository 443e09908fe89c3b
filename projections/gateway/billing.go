package gateway

import (
	"encoding/json"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// billingArea: the organization's spend caps and BYOK fee.
var billingArea = area{
	tables: []string{"gateway_spend_caps", "gateway_settings"},
	schema: []string{
		`CREATE TABLE IF NOT EXISTS {{gateway_spend_caps}} (
			organization_id text NOT NULL, cap_id text NOT NULL, scope text NOT NULL, cap jsonb NOT NULL, updated_at timestamptz NOT NULL,
			PRIMARY KEY (organization_id, cap_id))`,
		`CREATE TABLE IF NOT EXISTS {{gateway_settings}} (
			organization_id text PRIMARY KEY, service_fee_bps double precision NOT NULL, updated_at timestamptz NOT NULL)`,
	},
	reducers: ignored(projections.Reducers{
		domain.SpendCapUpserted: projections.On(func(e eventstore.Event, p domain.SpendCapUpsertedV1) ([]projections.Statement, error) {
			raw, err := json.Marshal(p.SpendCap)
			if err != nil {
				return nil, err
			}
			return []projections.Statement{projections.Exec(`INSERT INTO {{gateway_spend_caps}} (organization_id, cap_id, scope, cap, updated_at)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT (organization_id, cap_id) DO UPDATE SET cap = EXCLUDED.cap, updated_at = EXCLUDED.updated_at`,
				e.OrganizationID, p.ID, p.Scope(), json.RawMessage(raw), p.UpdatedAt)}, nil
		}),
		domain.SpendCapDeleted: projections.On(func(e eventstore.Event, p domain.SpendCapDeletedV1) ([]projections.Statement, error) {
			return []projections.Statement{projections.Exec(`DELETE FROM {{gateway_spend_caps}} WHERE organization_id = $1 AND cap_id = $2`,
				e.OrganizationID, p.ID)}, nil
		}),
		domain.ByokFeeUpdated: projections.On(func(e eventstore.Event, p domain.ByokFeeUpdatedV1) ([]projections.Statement, error) {
			return []projections.Statement{projections.Exec(`INSERT INTO {{gateway_settings}} (organization_id, service_fee_bps, updated_at)
				VALUES ($1, $2, $3) ON CONFLICT (organization_id) DO UPDATE SET service_fee_bps = EXCLUDED.service_fee_bps,
				updated_at = EXCLUDED.updated_at`, e.OrganizationID, p.ServiceFeeBps, p.At)}, nil
		}),
	}),
}
