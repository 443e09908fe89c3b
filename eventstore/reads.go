package eventstore

import (
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/domain/event"
)

// readSpec is what a command's first round trip reads: its stream (from
// the snapshot of the given schema when schema > 0) and, with a key, the
// idempotency record an earlier request left.
type readSpec struct {
	streamID   string
	schema     int
	scope, key string
}

// previous is what an earlier request with the same idempotency key left.
type previous struct {
	found  bool
	hash   string
	result []byte
	pos    Position
}

// loaded is what the first round trip read for one command.
type loaded struct {
	prev    previous
	history []Event
	err     error // the command's own: a stale timer
}

// readSQL reads, for every command of a transaction at once, its
// idempotency record (kind 0), its stream's snapshot (kind 1) and the
// events after that snapshot (kind 2), in one statement: rows of one
// command are in that order, events by version. The members a kind does
// not have are constants, so every row scans alike.
const readSQL = `WITH q AS (
	SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) WITH ORDINALITY AS q(stream_id, snap_schema, scope, key, ord)
), snap AS (
	SELECT q.ord, s.stream_type, s.organization_id, s.snapshot::text AS snapshot, s.snapshot_version, s.snapshot_schema
	FROM q JOIN es_streams s ON s.stream_id = q.stream_id
	WHERE q.snap_schema > 0 AND s.snapshot_schema = q.snap_schema AND s.snapshot IS NOT NULL
)
SELECT q.ord, 0 AS kind, '00000000-0000-0000-0000-000000000000'::uuid, i.request_hash, 0, '', i.stream_id, i.stream_version,
	'', '', '', 'epoch'::timestamptz, 'epoch'::timestamptz, '', '', '', i.result::text
FROM q JOIN es_idempotency i ON i.scope = q.scope AND i.key = q.key
WHERE q.key <> ''
UNION ALL
SELECT snap.ord, 1, '00000000-0000-0000-0000-000000000000'::uuid, '', snap.snapshot_schema, snap.stream_type, '', snap.snapshot_version,
	snap.organization_id, '', '', 'epoch'::timestamptz, 'epoch'::timestamptz, '', '', '', snap.snapshot
FROM snap
UNION ALL
SELECT q.ord, 2, e.event_id, e.event_type, e.schema_version, e.stream_type, e.stream_id, e.stream_version, e.organization_id,
	e.actor_id, e.actor_type, e.occurred_at, e.recorded_at, e.idempotency_key, e.correlation_id, e.causation_id, e.payload::text
FROM q CROSS JOIN LATERAL (
	SELECT * FROM es_events e WHERE e.stream_id = q.stream_id
		AND e.stream_version > COALESCE((SELECT snap.snapshot_version FROM snap WHERE snap.ord = q.ord), 0)
	ORDER BY e.stream_version) e
ORDER BY 1, 2, 8`

// genericPlans makes the rest of the transaction run prepared statements
// with their generic plan. readSQL and appendSQL take arrays, so PostgreSQL
// would plan each execution afresh (a custom plan looks cheaper than a
// generic one estimated for ten rows): measured, planning readSQL cost about
// 350 µs of PostgreSQL CPU a command, against 0.1 ms to run it. Every
// statement of a command transaction is an index lookup or a write by key,
// whose plan does not depend on the values.
const genericPlans = `SET LOCAL plan_cache_mode = force_generic_plan`

// queueReads queues the reads of the given commands as one statement.
func queueReads(b *pgx.Batch, specs []readSpec) {
	n := len(specs)
	ids, schemas, scopes, keys := make([]string, n), make([]int32, n), make([]string, n), make([]string, n)
	for i, s := range specs {
		ids[i], schemas[i], scopes[i], keys[i] = s.streamID, int32(s.schema), s.scope, s.key
	}
	b.Queue(readSQL, ids, schemas, scopes, keys)
}

// readReads reads what queueReads queued: per command, the idempotency
// record found and the history (the snapshot as a first Event of type
// event.SnapshotType, then the events after it, upcast).
func readReads(br pgx.BatchResults, specs []readSpec) ([]loaded, error) {
	out := make([]loaded, len(specs))
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var ord int64
		var kind int
		var e Event
		err := rows.Scan(&ord, &kind, &e.ID, &e.Type, &e.SchemaVersion, &e.StreamType, &e.StreamID, &e.StreamVersion, &e.OrganizationID,
			&e.Actor.ID, &e.Actor.Type, &e.OccurredAt, &e.RecordedAt, &e.IdempotencyKey, &e.CorrelationID, &e.CausationID, &e.Payload)
		if err != nil {
			return nil, err
		}
		if ord < 1 || int(ord) > len(out) {
			return nil, fmt.Errorf("eventstore: read row for command %d of %d", ord, len(out))
		}
		r := &out[ord-1]
		switch kind {
		case 0:
			r.prev = previous{found: true, hash: e.Type, result: e.Payload, pos: Position{StreamID: e.StreamID, Version: e.StreamVersion}}
		case 1:
			e.Type, e.StreamID = event.SnapshotType, specs[ord-1].streamID
			r.history = append(r.history, e)
		default:
			if e, err = Upcast(e); err != nil {
				return nil, err
			}
			r.history = append(r.history, e)
		}
	}
	return out, rows.Err()
}

// lockSQL takes transaction-scoped advisory locks in the order given (a
// function scan evaluates its rows in array order; no ORDER BY, which could
// evaluate the locks before sorting).
const lockSQL = `SELECT count(pg_advisory_xact_lock(hashtextextended(l.name, l.space))) FROM unnest($1::text[], $2::int[]) AS l(name, space)`

// Lock spaces: an idempotency key's lock and a stream's.
const (
	lockSpaceKey    = 1
	lockSpaceStream = 2
)

// queueLocks queues the locks of the given commands' idempotency keys, then
// of their streams, each sorted: concurrent transactions take them in one
// order, so none waits on another in a cycle.
func queueLocks(b *pgx.Batch, cmds []Command) {
	var keys, streams []string
	for _, cmd := range cmds {
		if cmd.IdempotencyKey != "" {
			keys = append(keys, idempotencyLock(cmd))
		}
		streams = append(streams, cmd.StreamID)
	}
	slices.Sort(keys)
	slices.Sort(streams)
	names := append(keys, streams...)
	spaces := make([]int32, len(names))
	for i := range names {
		spaces[i] = lockSpaceStream
		if i < len(keys) {
			spaces[i] = lockSpaceKey
		}
	}
	b.Queue(lockSQL, names, spaces)
}

func idempotencyLock(cmd Command) string { return cmd.OrganizationID + ":" + cmd.IdempotencyKey }
