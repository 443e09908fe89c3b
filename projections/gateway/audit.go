package gateway

import (
	"encoding/json"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// auditArea: the gateway's own audit trail: who changed its configuration
// (caps, the fee, meters, provisioning) and the provider health transitions
// it recorded. Never prompts or answers: usage events are not audited here.
var auditArea = area{
	tables: []string{"gateway_audit"},
	schema: []string{
		`CREATE TABLE IF NOT EXISTS {{gateway_audit}} (
			organization_id text NOT NULL, event_id uuid PRIMARY KEY, event_type text NOT NULL, actor_id text NOT NULL,
			actor_type text NOT NULL, occurred_at timestamptz NOT NULL, details jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{gateway_audit}}_org ON {{gateway_audit}} (organization_id, occurred_at DESC)`,
	},
	reducers: ignored(projections.Reducers{
		domain.SpendCapUpserted:        audited,
		domain.SpendCapDeleted:         audited,
		domain.ByokFeeUpdated:          audited,
		domain.MeterDefined:            audited,
		domain.MeterDeleted:            audited,
		domain.MeterThresholdCrossed:   audited,
		domain.ProviderDegraded:        audited,
		domain.ProviderRecovered:       audited,
		domain.OrganizationProvisioned: audited,
		domain.OrganizationUpdated:     audited,
	}),
}

// audited records an event as it is (these payloads hold configuration,
// never secrets or content).
func audited(e eventstore.Event) ([]projections.Statement, error) {
	if !json.Valid(e.Payload) {
		return nil, nil
	}
	return []projections.Statement{projections.Insert("{{gateway_audit}}", auditColumns, "ON CONFLICT DO NOTHING",
		e.OrganizationID, e.ID, e.Type, e.Actor.ID, e.Actor.Type, e.OccurredAt, json.RawMessage(e.Payload))}, nil
}

var auditColumns = []string{"organization_id", "event_id", "event_type", "actor_id", "actor_type", "occurred_at", "details"}
