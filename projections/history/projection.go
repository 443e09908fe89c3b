// Package history is the auditors' view: every event of every context, who
// did what, when, to which object, and why (correlation and causation).
package history

import (
	"time"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

const Name = "history"

// Retention is how long the audit view keeps an event (seed 001: audit
// records older than 365 days are purged by privacy maintenance).
const Retention = 365 * 24 * time.Hour

// Projection records every event it reads, except events already past the
// audit retention: privacy maintenance purges those from the table, and a
// rebuild from the log must not bring them back.
type Projection struct {
	Sources   []string
	Retention time.Duration    // 0 keeps everything
	Now       func() time.Time // nil: time.Now
	// Redact names the payload members never recorded, per event type
	// (each context's declaration, merged by internal/app).
	Redact Redactions
	// Rules are the contexts' audit rules: an erasing event removes the
	// restricted members of its stream's earlier rows.
	Rules Rules
	// OneEvent are the stream types whose streams hold one event each
	// (each context's declaration): their events' rows, keyed by event id,
	// are all the runner keeps of them.
	OneEvent []string
}

var _ projections.OneEventStreams = Projection{}

// OneEventStreams: every event's row is keyed by its event id.
func (p Projection) OneEventStreams() map[string]string {
	out := make(map[string]string, len(p.OneEvent))
	for _, t := range p.OneEvent {
		out[t] = "{{history_events}}"
	}
	return out
}

var _ projections.EveryType = Projection{}

// HandlesEveryType: every event of every context is recorded the same way.
func (Projection) HandlesEveryType() {}

func (Projection) Name() string         { return Name }
func (p Projection) Contexts() []string { return p.Sources }
func (Projection) Tables() []string     { return []string{"history_events"} }

// Schema: the payload is json, stored as the event carries it (the
// envelope's own bytes, redacted), not parsed into jsonb: nothing reads
// inside it but the erasure (a rare statement, which casts), and jsonb cost
// every row a parse on the live path (docs/decisions.md). A generation
// created before (jsonb) keeps its column until the next rebuild: the
// statements below work on both.
func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{history_events}} (
			event_id uuid PRIMARY KEY, organization_id text NOT NULL, stream_type text NOT NULL, stream_id text NOT NULL,
			stream_version bigint NOT NULL, event_type text NOT NULL, schema_version int NOT NULL,
			actor_id text NOT NULL, actor_type text NOT NULL, occurred_at timestamptz NOT NULL, recorded_at timestamptz NOT NULL,
			correlation_id text NOT NULL, causation_id text NOT NULL, idempotency_key text NOT NULL, payload json NOT NULL)`,
	}
}

var _ projections.DeferredIndexes = Projection{}

// DeferredIndexes: a rebuild is a bulk load of the table, and the two
// secondary indexes were ~4 of PostgreSQL's 9-10 µs a COPYd row (an entry
// in each, the stream index's at 2,000 places at once in a replay), ~1.3
// µs built once (bench/README.md): a rebuilt generation builds them once it has caught
// up, before it goes live (the erasing statement, which finds a stream's
// rows through the stream index, has them built earlier). The primary key
// stays: it keeps each event once.
func (Projection) DeferredIndexes() []string {
	return []string{
		`CREATE INDEX IF NOT EXISTS {{history_events}}_org ON {{history_events}} (organization_id, event_id)`,
		`CREATE INDEX IF NOT EXISTS {{history_events}}_stream ON {{history_events}} (stream_id, stream_version)`,
	}
}

// expired reports an event past the audit retention.
func (p Projection) expired(e eventstore.Event) bool {
	if p.Retention <= 0 {
		return false
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	return e.RecordedAt.Before(now().Add(-p.Retention))
}

func (p Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	if p.expired(e) {
		return nil, nil
	}
	payload, err := p.Redact.Apply(e.Type, e.Payload)
	if err != nil {
		return nil, err
	}
	// One row an event, keyed by its id: the runner COPYs a batch's rows.
	insert := projections.Append("{{history_events}}", columns,
		e.ID, e.OrganizationID, e.StreamType, e.StreamID, e.StreamVersion, e.Type, e.SchemaVersion, e.Actor.ID, e.Actor.Type,
		e.OccurredAt, e.RecordedAt, e.CorrelationID, e.CausationID, e.IdempotencyKey, payload)
	rule, ruled := p.Rules[e.Type]
	if !ruled {
		return []projections.Statement{insert}, nil
	}
	// Rows of ruled types are written in event order, not merged after the
	// batch's other statements (projections.Append), so that an erasure in
	// the same batch (a rebuild) finds the rows it erases.
	out := []projections.Statement{projections.Exec(insert.SQL, insert.Args...)}
	if rule.Erases {
		out = append(out, projections.Exec(`UPDATE {{history_events}} SET payload = payload::jsonb - $3::text[]
			WHERE stream_id=$1 AND stream_version < $2 AND event_type = ANY($4)`,
			e.StreamID, e.StreamVersion, p.Rules.restrictedMembers(), p.Rules.restrictedTypes()).NeedsIndexes())
	}
	return out, nil
}

var columns = []string{"event_id", "organization_id", "stream_type", "stream_id", "stream_version", "event_type", "schema_version",
	"actor_id", "actor_type", "occurred_at", "recorded_at", "correlation_id", "causation_id", "idempotency_key", "payload"}
