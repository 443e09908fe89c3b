package history

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/projections"
)

type Entry struct {
	EventID        string          `json:"event_id"`
	OrganizationID string          `json:"organization_id"`
	StreamType     string          `json:"stream_type"`
	StreamID       string          `json:"stream_id"`
	StreamVersion  int64           `json:"stream_version"`
	Type           string          `json:"type"`
	SchemaVersion  int             `json:"schema_version"`
	ActorID        string          `json:"actor_id"`
	ActorType      string          `json:"actor_type"`
	OccurredAt     time.Time       `json:"occurred_at"`
	RecordedAt     time.Time       `json:"recorded_at"`
	CorrelationID  string          `json:"correlation_id"`
	CausationID    string          `json:"causation_id"`
	IdempotencyKey string          `json:"idempotency_key"`
	Payload        json.RawMessage `json:"payload"`
}

// Filter selects history; After is the cursor (an event id: UUIDv7 ids sort
// by time, so paging by id is paging by time).
type Filter struct {
	OrganizationID string
	StreamID       string
	Type           string
	Since, Until   *time.Time
	After          string
	Limit          int
	// Privileged readers (organization admins and above) see restricted
	// members of superseded events (Rules).
	Privileged bool
}

type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
	redact Redactions
	rules  Rules
}

// NewQueries reads the audit view; redact is the projection's declaration,
// applied again to every answer (rows recorded before a member was
// declared), and rules decide per row and reader what restricted members
// show.
func NewQueries(pool *pgxpool.Pool, reader *projections.Reader, redact Redactions, rules Rules) *Queries {
	return &Queries{pool: pool, reader: reader, redact: redact, rules: rules}
}

// List returns one page and the cursor of the next (empty at the end).
func (q *Queries) List(ctx context.Context, f Filter) ([]Entry, string, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	// Whether a later event of the row's stream superseded or erased it,
	// asked only of rows of restricted types (the stream index answers).
	later := func(types string) string {
		return `CASE WHEN h.event_type = ANY($2) THEN EXISTS (SELECT 1 FROM {{history_events}} l WHERE l.stream_id = h.stream_id
			AND l.stream_version > h.stream_version AND l.event_type = ANY(` + types + `)) ELSE false END`
	}
	sql := `SELECT event_id, organization_id, stream_type, stream_id, stream_version, event_type, schema_version, actor_id, actor_type,
		occurred_at, recorded_at, correlation_id, causation_id, idempotency_key, payload, ` + later("$3") + `, ` + later("$4") + `
		FROM {{history_events}} h WHERE organization_id=$1`
	args := []any{f.OrganizationID, q.rules.restrictedTypes(), q.rules.supersedingTypes(), q.rules.erasingTypes()}
	add := func(cond string, v any) {
		args = append(args, v)
		sql += " AND " + cond + "$" + strconv.Itoa(len(args))
	}
	if f.StreamID != "" {
		add("stream_id=", f.StreamID)
	}
	if f.Type != "" {
		add("event_type=", f.Type)
	}
	if f.Since != nil {
		add("recorded_at>=", *f.Since)
	}
	if f.Until != nil {
		add("recorded_at<", *f.Until)
	}
	if f.After != "" {
		add("event_id>", f.After)
	}
	args = append(args, f.Limit+1)
	sql += " ORDER BY event_id LIMIT $" + strconv.Itoa(len(args))
	resolved, err := q.reader.SQL(ctx, Projection{}, sql)
	if err != nil {
		return nil, "", err
	}
	rows, err := q.pool.Query(ctx, resolved, args...)
	if err != nil {
		return nil, "", err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Entry, error) {
		var e Entry
		var superseded, erased bool
		err := r.Scan(&e.EventID, &e.OrganizationID, &e.StreamType, &e.StreamID, &e.StreamVersion, &e.Type, &e.SchemaVersion,
			&e.ActorID, &e.ActorType, &e.OccurredAt, &e.RecordedAt, &e.CorrelationID, &e.CausationID, &e.IdempotencyKey, &e.Payload,
			&superseded, &erased)
		if err == nil {
			e.Payload, err = q.redact.Apply(e.Type, e.Payload)
		}
		if err == nil {
			e.Payload, err = q.rules.Show(e.Type, e.Payload, superseded, erased, f.Privileged)
		}
		return e, err
	})
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(list) > f.Limit {
		list = list[:f.Limit]
		next = list[len(list)-1].EventID
	}
	return list, next, nil
}
