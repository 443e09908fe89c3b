package gateway

import (
	"encoding/json"
	"time"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// usageArea: every attempt (usage events list), per-day totals (daily
// snapshots) and month-to-date units and charges by provider, app, model and
// operation (billing overview; raw units, so the current price table can
// re-rate them).
var usageArea = area{
	tables: []string{"gateway_usage_events", "gateway_usage_daily", "gateway_billing_usage"},
	schema: []string{
		`CREATE TABLE IF NOT EXISTS {{gateway_usage_events}} (
			organization_id text NOT NULL, event_id uuid PRIMARY KEY, request_id text NOT NULL, occurred_at timestamptz NOT NULL,
			event_type text NOT NULL, severity text NOT NULL, outcome text NOT NULL, provider text NOT NULL, model text NOT NULL,
			operation text NOT NULL, app_id text NOT NULL, use_case text NOT NULL, principal_id text NOT NULL, principal_type text NOT NULL,
			connection_id text NOT NULL, byok boolean NOT NULL, units jsonb NOT NULL, estimated boolean NOT NULL, latency_ms bigint NOT NULL,
			cost_microcents bigint NOT NULL, provider_cost_microcents bigint NOT NULL, service_fee_microcents bigint NOT NULL,
			price_version text NOT NULL, error text NOT NULL, provider_request_id text NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{gateway_usage_events}}_org ON {{gateway_usage_events}} (organization_id, occurred_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{gateway_usage_daily}} (
			organization_id text NOT NULL, day date NOT NULL, calls bigint NOT NULL, failures bigint NOT NULL,
			input_tokens bigint NOT NULL, output_tokens bigint NOT NULL, cost_microcents bigint NOT NULL,
			PRIMARY KEY (organization_id, day)) WITH (fillfactor = 70)`,
		`CREATE TABLE IF NOT EXISTS {{gateway_billing_usage}} (
			organization_id text NOT NULL, month text NOT NULL, provider text NOT NULL, app_id text NOT NULL, model text NOT NULL,
			operation text NOT NULL, byok boolean NOT NULL, calls bigint NOT NULL, input_tokens bigint NOT NULL, output_tokens bigint NOT NULL,
			characters bigint NOT NULL, messages bigint NOT NULL, audio_ms bigint NOT NULL, images bigint NOT NULL, unit_calls bigint NOT NULL,
			cost_microcents bigint NOT NULL, provider_cost_microcents bigint NOT NULL, service_fee_microcents bigint NOT NULL,
			PRIMARY KEY (organization_id, month, provider, app_id, model, operation, byok)) WITH (fillfactor = 70)`,
	},
	reducers: ignored(projections.Reducers{}),
	usage:    usageRecorded,
}

func usageRecorded(e eventstore.Event, p domain.UsageRecordedV1) ([]projections.Statement, error) {
	failed := 0
	if p.Outcome != domain.OutcomeOK {
		failed = 1
	}
	u := p.Units
	units, err := json.Marshal(u)
	if err != nil {
		return nil, err
	}
	return []projections.Statement{
		projections.Insert("{{gateway_usage_events}}", usageColumns, "ON CONFLICT DO NOTHING",
			e.OrganizationID, e.ID, p.RequestID, p.OccurredAt, p.Action, domain.Severity(p.Outcome), p.Outcome, p.Provider, p.Model,
			p.Operation, p.AppID, p.UseCase, p.PrincipalID, p.PrincipalType, p.ConnectionID, p.BYOK, json.RawMessage(units), p.Estimated, p.LatencyMS,
			p.Cost, p.ProviderCost, p.ServiceFee, p.PriceVersion, p.Error, p.ProviderRequestID),
		// Per-day and per-month totals are counters: a batch of usage
		// events adds to each row once.
		projections.Add("{{gateway_usage_daily}}", []string{"organization_id", "day"},
			[]any{e.OrganizationID, p.OccurredAt.UTC().Format(time.DateOnly)}, dailySums,
			1, int64(failed), u.InputTokens, u.OutputTokens, p.Cost),
		projections.Add("{{gateway_billing_usage}}", billingKeys,
			[]any{e.OrganizationID, p.Month, p.Provider, p.AppID, p.Model, p.Operation, p.BYOK}, billingSums,
			1, u.InputTokens, u.OutputTokens, u.Characters, u.Messages, u.AudioMS, u.Images, u.Calls, p.Cost, p.ProviderCost, p.ServiceFee),
	}, nil
}

var (
	dailySums   = []string{"calls", "failures", "input_tokens", "output_tokens", "cost_microcents"}
	billingKeys = []string{"organization_id", "month", "provider", "app_id", "model", "operation", "byok"}
	billingSums = []string{"calls", "input_tokens", "output_tokens", "characters", "messages", "audio_ms", "images", "unit_calls",
		"cost_microcents", "provider_cost_microcents", "service_fee_microcents"}
)

var usageColumns = []string{"organization_id", "event_id", "request_id", "occurred_at", "event_type", "severity", "outcome", "provider", "model",
	"operation", "app_id", "use_case", "principal_id", "principal_type", "connection_id", "byok", "units", "estimated", "latency_ms",
	"cost_microcents", "provider_cost_microcents", "service_fee_microcents", "price_version", "error", "provider_request_id"}
