package gateway

import (
	"encoding/json"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// mirrorBilling writes an organization's billing state (the answer of every
// billing command) to the tables the metered path reads, in the command's
// transaction: the caps a reservation checks and the BYOK fee.
func mirrorBilling(org string) commands.Option {
	return commands.Also(func(s domain.BillingState) []eventstore.Write {
		type row struct {
			Scope         string `json:"scope"`
			CapID         string `json:"cap_id"`
			CapMicrocents int64  `json:"cap_microcents"`
			Hard          bool   `json:"hard"`
			Active        bool   `json:"active"`
		}
		rows := make([]row, 0, len(s.Caps))
		for _, c := range s.Caps {
			rows = append(rows, row{Scope: c.Scope(), CapID: c.ID, CapMicrocents: c.CapMicrocents(), Hard: c.CapMode == domain.CapHard, Active: c.IsActive})
		}
		raw, _ := json.Marshal(rows) // plain structs: cannot fail
		return []eventstore.Write{
			{SQL: `DELETE FROM gateway_caps WHERE organization_id = $1`, Args: []any{org}},
			{SQL: `INSERT INTO gateway_caps (organization_id, scope, cap_id, cap_microcents, hard, active)
				SELECT $1, scope, cap_id, cap_microcents, hard, active
				FROM jsonb_to_recordset($2::jsonb) AS r(scope text, cap_id text, cap_microcents bigint, hard boolean, active boolean)`,
				Args: []any{org, string(raw)}},
			{SQL: `INSERT INTO gateway_fees (organization_id, service_fee_bps) VALUES ($1, $2)
				ON CONFLICT (organization_id) DO UPDATE SET service_fee_bps = EXCLUDED.service_fee_bps`, Args: []any{org, s.ServiceFeeBps}},
		}
	})
}

func billingState(b *domain.Billing) domain.BillingState { return b.State }
