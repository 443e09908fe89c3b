package gateway

import (
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// healthArea: key health per organization, provider and connection: the
// last success and failure, counts, and the provider's health state (from
// the transitions).
var healthArea = area{
	tables: []string{"gateway_key_health"},
	schema: []string{
		`CREATE TABLE IF NOT EXISTS {{gateway_key_health}} (
			organization_id text NOT NULL, provider text NOT NULL, connection_id text NOT NULL, status text NOT NULL,
			successes bigint NOT NULL, failures bigint NOT NULL, last_success_at timestamptz, last_failure_at timestamptz,
			last_error text NOT NULL, last_latency_ms bigint NOT NULL, PRIMARY KEY (organization_id, provider, connection_id))
			WITH (fillfactor = 70)`,
	},
	reducers: ignored(projections.Reducers{
		domain.ProviderDegraded:  projections.On(healthMoved),
		domain.ProviderRecovered: projections.On(healthMoved),
	}),
	usage: keyAttempt,
}

// keyAttempt counts what a key's calls tell about the key and its
// provider: successes, and failures of the provider or the key (not the
// caller's own input, deadline or an abandoned call).
func keyAttempt(e eventstore.Event, p domain.UsageRecordedV1) ([]projections.Statement, error) {
	ok, failed := p.Outcome == domain.OutcomeOK, false
	switch p.Outcome {
	case domain.OutcomeProviderError, domain.OutcomeTimeout, domain.OutcomeCut, domain.OutcomeRateLimited, domain.OutcomeUnauthorized:
		failed = true
	}
	if !ok && !failed {
		return nil, nil
	}
	var success, failure, errWord any
	if ok {
		success = p.OccurredAt
	} else {
		failure, errWord = p.OccurredAt, p.Error
		if p.Error == "" {
			errWord = p.Outcome
		}
	}
	// One row per key, written once per batch (a Tally): the counts summed,
	// the last success, failure, error and latency of the batch's calls. A
	// new row's status is unknown (healthMoved sets it); an existing row
	// keeps its times and error unless the batch has newer ones.
	return []projections.Statement{projections.Tally("{{gateway_key_health}}", []string{"organization_id", "provider", "connection_id"},
		[]any{e.OrganizationID, p.Provider, p.ConnectionID}, []string{"successes", "failures"}, []int64{int64(b2i(ok)), int64(b2i(failed))},
		projections.Last{Column: "status", Insert: "'unknown'"},
		projections.Last{Column: "last_success_at", Update: "COALESCE(EXCLUDED.last_success_at, t.last_success_at)", Value: success},
		projections.Last{Column: "last_failure_at", Update: "COALESCE(EXCLUDED.last_failure_at, t.last_failure_at)", Value: failure},
		projections.Last{Column: "last_error", Insert: "COALESCE(last_error, '')",
			Update: "CASE WHEN EXCLUDED.failures > 0 THEN EXCLUDED.last_error ELSE t.last_error END", Value: errWord},
		projections.Last{Column: "last_latency_ms", Update: "EXCLUDED.last_latency_ms", Value: p.LatencyMS})}, nil
}

// healthMoved sets the provider's state on every connection row of it in
// the organization (health is per organization and provider).
func healthMoved(e eventstore.Event, p domain.ProviderHealthV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`INSERT INTO {{gateway_key_health}} AS k (organization_id, provider, connection_id, status,
		successes, failures, last_error, last_latency_ms) VALUES ($1, $2, $3, $4, 0, 0, '', 0)
		ON CONFLICT (organization_id, provider, connection_id) DO NOTHING`, e.OrganizationID, p.Provider, p.ConnectionID, p.Status),
		projections.Exec(`UPDATE {{gateway_key_health}} SET status = $3 WHERE organization_id = $1 AND provider = $2`,
			e.OrganizationID, p.Provider, p.Status)}, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
