package eventstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/domain/event"
)

// appendSQL writes what the commands of a transaction append, in one
// statement however many there are: their events (in item order, each
// stream's in version order, so global_seq keeps stream order), their
// streams' heads (with the new snapshot when a command takes snapshots; a
// command without one keeps the stream's last) and their idempotency
// records. A transaction never holds two commands of one stream (rounds),
// so no head is updated twice.
const appendSQL = `WITH ev AS (
	INSERT INTO es_events (event_id, stream_type, stream_id, stream_version, event_type, schema_version,
		organization_id, actor_id, actor_type, occurred_at, recorded_at, idempotency_key, correlation_id, causation_id, payload, topic)
	SELECT id, st, sid, v, et, sv, org, aid, aty, $16, $16, ik, cid, caid, p::jsonb, tp
	FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::int[], $7::text[], $8::text[], $9::text[],
		$10::text[], $11::text[], $12::text[], $13::text[], $14::text[]) AS e(id, st, sid, v, et, sv, org, aid, aty, ik, cid, caid, p, tp)
), hd AS (
	INSERT INTO es_streams (stream_id, stream_type, organization_id, version, snapshot, snapshot_version, snapshot_schema)
	SELECT sid, st, org, v, NULLIF(snap, '')::jsonb, snv, sns
	FROM unnest($15::text[], $17::text[], $18::text[], $19::bigint[], $20::text[], $21::bigint[], $22::int[]) AS h(sid, st, org, v, snap, snv, sns)
	ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version,
		snapshot = COALESCE(EXCLUDED.snapshot, es_streams.snapshot),
		snapshot_version = CASE WHEN EXCLUDED.snapshot IS NULL THEN es_streams.snapshot_version ELSE EXCLUDED.snapshot_version END,
		snapshot_schema = CASE WHEN EXCLUDED.snapshot IS NULL THEN es_streams.snapshot_schema ELSE EXCLUDED.snapshot_schema END
), idem AS (
	INSERT INTO es_idempotency (scope, key, request_hash, result, stream_id, stream_version)
	SELECT sc, k, rh, r::jsonb, sid, v FROM unnest($23::text[], $24::text[], $25::text[], $26::text[], $27::text[], $28::bigint[]) AS i(sc, k, rh, r, sid, v)
)
SELECT 1`

// appends gathers the rows appendSQL writes, column by column.
type appends struct {
	// events
	ids                                      []uuid.UUID
	streamTypes, streamIDs                   []string
	versions                                 []int64
	types                                    []string
	schemas                                  []int32
	orgs, actorIDs, actorTypes               []string
	keys, correlations, causations, payloads []string
	topics                                   []string
	// heads
	hIDs, hTypes, hOrgs []string
	hVersions           []int64
	hSnaps              []string
	hSnapVersions       []int64
	hSnapSchemas        []int32
	// idempotency records
	iScopes, iKeys, iHashes, iResults, iStreams []string
	iVersions                                   []int64
}

// add gathers one command's events (versions from version + 1), its head
// and its idempotency record, and returns the position of its last event.
func (a *appends) add(topic string, cmd Command, version int64, d Decision, result []byte) (Position, error) {
	for _, ne := range d.Events {
		version++
		payload, err := encodeJSON(ne.Payload)
		if err != nil {
			return Position{}, fmt.Errorf("encode %s: %w", ne.Type, err)
		}
		id, err := uuid.NewV7()
		if err != nil {
			return Position{}, err
		}
		a.ids = append(a.ids, id)
		a.streamTypes = append(a.streamTypes, cmd.StreamType)
		a.streamIDs = append(a.streamIDs, cmd.StreamID)
		a.versions = append(a.versions, version)
		a.types = append(a.types, ne.Type)
		a.schemas = append(a.schemas, int32(max(ne.SchemaVersion, 1)))
		a.orgs = append(a.orgs, cmd.OrganizationID)
		a.actorIDs = append(a.actorIDs, cmd.Actor.ID)
		a.actorTypes = append(a.actorTypes, cmd.Actor.Type)
		a.keys = append(a.keys, cmd.IdempotencyKey)
		a.correlations = append(a.correlations, cmd.CorrelationID)
		a.causations = append(a.causations, cmd.CausationID)
		a.payloads = append(a.payloads, string(payload))
		a.topics = append(a.topics, topic)
	}
	var snapshot string
	snapVersion, snapSchema := int64(0), 0
	if schema := cmd.Snapshot.schema(); schema > 0 && d.Snapshot != nil {
		raw, err := encodeJSON(d.Snapshot)
		if err != nil {
			return Position{}, fmt.Errorf("encode snapshot: %w", err)
		}
		snapshot, snapVersion, snapSchema = string(raw), version, schema
	}
	a.hIDs = append(a.hIDs, cmd.StreamID)
	a.hTypes = append(a.hTypes, cmd.StreamType)
	a.hOrgs = append(a.hOrgs, cmd.OrganizationID)
	a.hVersions = append(a.hVersions, version)
	a.hSnaps = append(a.hSnaps, snapshot)
	a.hSnapVersions = append(a.hSnapVersions, snapVersion)
	a.hSnapSchemas = append(a.hSnapSchemas, int32(snapSchema))
	pos := Position{StreamID: cmd.StreamID, Version: version}
	if cmd.IdempotencyKey != "" {
		a.iScopes = append(a.iScopes, cmd.OrganizationID)
		a.iKeys = append(a.iKeys, cmd.IdempotencyKey)
		a.iHashes = append(a.iHashes, cmd.RequestHash)
		a.iResults = append(a.iResults, string(result))
		a.iStreams = append(a.iStreams, pos.StreamID)
		a.iVersions = append(a.iVersions, pos.Version)
	}
	return pos, nil
}

// queue queues the statement, when anything was gathered.
func (a *appends) queue(b *pgx.Batch, now time.Time) {
	if len(a.hIDs) == 0 {
		return
	}
	b.Queue(appendSQL, a.ids, a.streamTypes, a.streamIDs, a.versions, a.types, a.schemas, a.orgs, a.actorIDs, a.actorTypes,
		a.keys, a.correlations, a.causations, a.payloads, a.topics,
		a.hIDs, now, a.hTypes, a.hOrgs, a.hVersions, a.hSnaps, a.hSnapVersions, a.hSnapSchemas,
		a.iScopes, a.iKeys, a.iHashes, a.iResults, a.iStreams, a.iVersions)
}

// history is the stream's history as a read would return it after this
// transaction, for the command whose events and head are the last gathered
// from index from: its snapshot alone when it saved one, else before
// followed by its events (knownStreams).
func (a *appends) history(from int, before []Event, cmd Command, now time.Time) ([]Event, error) {
	at := recordedAt(now)
	head := len(a.hIDs) - 1
	if a.hSnaps[head] != "" {
		return []Event{{Type: event.SnapshotType, SchemaVersion: int(a.hSnapSchemas[head]), StreamType: cmd.StreamType,
			StreamID: cmd.StreamID, StreamVersion: a.hSnapVersions[head], OrganizationID: cmd.OrganizationID,
			OccurredAt: recordedAt(time.Unix(0, 0)), RecordedAt: recordedAt(time.Unix(0, 0)), Payload: json.RawMessage(a.hSnaps[head])}}, nil
	}
	out := make([]Event, len(before), len(before)+len(a.ids)-from)
	copy(out, before)
	for k := from; k < len(a.ids); k++ {
		e, err := Upcast(Event{ID: a.ids[k], Type: a.types[k], SchemaVersion: int(a.schemas[k]), StreamType: a.streamTypes[k],
			StreamID: a.streamIDs[k], StreamVersion: a.versions[k], OrganizationID: a.orgs[k],
			Actor: Actor{ID: a.actorIDs[k], Type: a.actorTypes[k]}, OccurredAt: at, RecordedAt: at, IdempotencyKey: a.keys[k],
			CorrelationID: a.correlations[k], CausationID: a.causations[k], Payload: json.RawMessage(a.payloads[k])})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
