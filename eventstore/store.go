package eventstore

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the outbox, stream-head and idempotency tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "eventstore", migrations, "migrations")
}

// Store appends events to the PostgreSQL outbox.
type Store struct {
	pool   *pgxpool.Pool
	topics Topics
	now    func() time.Time
}

func NewStore(pool *pgxpool.Pool, topics Topics) *Store {
	return &Store{pool: pool, topics: topics, now: time.Now}
}

// Command describes one write to one stream.
type Command struct {
	StreamType     string
	StreamID       string
	OrganizationID string
	Actor          Actor
	// IdempotencyKey is optional. With one, RequestHash must identify the
	// request (method, path, body) so that a reused key can be told apart.
	IdempotencyKey string
	RequestHash    string
	CorrelationID  string
	CausationID    string
	// Snapshot, when set, makes the store load the stream from its latest
	// snapshot and save a new one with every append.
	Snapshot *Snapshotting
}

// NewEvent is what a decision returns: the store fills in the envelope.
type NewEvent = event.Change

// Decision is the outcome of a command's domain logic: the events to append
// and the result to return (and to replay for the same idempotency key).
type Decision struct {
	Events []NewEvent
	Result any
}

// Decider gets the stream's history (empty for a new stream) and decides.
// It must be pure: it may run again if the transaction is retried.
type Decider func(history []Event) (Decision, error)

// Outcome is what Execute returns to the caller.
type Outcome struct {
	Result   json.RawMessage
	Position Position
	// Replayed is true when the result comes from an earlier request with
	// the same idempotency key and nothing was appended now.
	Replayed bool
}

// HashRequest is the request fingerprint stored beside an idempotency key.
func HashRequest(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Execute runs one command: in one transaction it serializes on the
// idempotency key and the stream, loads the history, decides, appends the
// events, advances the stream head and records the idempotency key.
func (s *Store) Execute(ctx context.Context, cmd Command, decide Decider) (Outcome, error) {
	topic, err := s.topics.ForStreamType(cmd.StreamType)
	if err != nil {
		return Outcome{}, err
	}
	var out Outcome
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		out, err = s.execute(ctx, tx, topic, cmd, decide)
		return err
	})
	if err != nil {
		return Outcome{}, classify(err)
	}
	return out, nil
}

// classify tells a database that is down or overloaded (503, retry) from a
// statement the database refused (a bug: 500).
func classify(err error) error {
	if _, typed := errs.As(err); typed || errors.Is(err, context.Canceled) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.SQLState()[:2] {
		case "08", "53", "57": // connection exception, insufficient resources, operator intervention
		default:
			return err
		}
	}
	return errs.Unavailable("the event store could not record the command", err)
}

func (s *Store) execute(ctx context.Context, tx pgx.Tx, topic string, cmd Command, decide Decider) (Outcome, error) {
	scope := cmd.OrganizationID
	if cmd.IdempotencyKey != "" {
		// Lock order is always key, then stream: no deadlock between commands.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 1))`, scope+":"+cmd.IdempotencyKey); err != nil {
			return Outcome{}, err
		}
		var hash string
		var result []byte
		var pos Position
		err := tx.QueryRow(ctx, `SELECT request_hash, result, stream_id, stream_version FROM es_idempotency WHERE scope=$1 AND key=$2`,
			scope, cmd.IdempotencyKey).Scan(&hash, &result, &pos.StreamID, &pos.Version)
		switch {
		case err == nil && hash == cmd.RequestHash:
			return Outcome{Result: result, Position: pos, Replayed: true}, nil
		case err == nil:
			return Outcome{}, errs.IdempotencyMismatch()
		case !errors.Is(err, pgx.ErrNoRows):
			return Outcome{}, err
		}
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 2))`, cmd.StreamID); err != nil {
		return Outcome{}, err
	}
	history, err := loadLatest(ctx, tx, cmd.StreamID, cmd.Snapshot.schema())
	if err != nil {
		return Outcome{}, err
	}
	if len(history) > 0 && history[0].OrganizationID != cmd.OrganizationID {
		// Another tenant's stream id is indistinguishable from a missing one.
		return Outcome{}, errs.NotFound(cmd.StreamType)
	}
	decision, err := decide(history)
	if err != nil {
		return Outcome{}, err
	}
	result, err := json.Marshal(decision.Result)
	if err != nil {
		return Outcome{}, fmt.Errorf("encode result: %w", err)
	}
	before := headVersion(history)
	version := before
	if len(decision.Events) == 0 {
		return Outcome{Result: result, Position: Position{StreamID: cmd.StreamID, Version: version}}, nil
	}
	if err := claimUnique(ctx, tx, cmd.StreamID, decision.Events); err != nil {
		return Outcome{}, err
	}
	now := s.now().UTC()
	batch := &pgx.Batch{}
	appended := make([]Event, 0, len(decision.Events))
	for _, ne := range decision.Events {
		version++
		payload, err := json.Marshal(ne.Payload)
		if err != nil {
			return Outcome{}, fmt.Errorf("encode %s: %w", ne.Type, err)
		}
		appended = append(appended, Event{Type: ne.Type, SchemaVersion: max(ne.SchemaVersion, 1), StreamType: cmd.StreamType,
			StreamID: cmd.StreamID, StreamVersion: version, OrganizationID: cmd.OrganizationID, Actor: cmd.Actor,
			OccurredAt: now, RecordedAt: now, Payload: payload})
		id, err := uuid.NewV7()
		if err != nil {
			return Outcome{}, err
		}
		batch.Queue(`INSERT INTO es_events (event_id, stream_type, stream_id, stream_version, event_type, schema_version,
			organization_id, actor_id, actor_type, occurred_at, recorded_at, idempotency_key, correlation_id, causation_id, payload, topic)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$10,$11,$12,$13,$14,$15)`,
			id, cmd.StreamType, cmd.StreamID, version, ne.Type, max(ne.SchemaVersion, 1),
			cmd.OrganizationID, cmd.Actor.ID, cmd.Actor.Type, now, cmd.IdempotencyKey, cmd.CorrelationID, cmd.CausationID, payload, topic)
	}
	snapshot, err := cmd.Snapshot.take(append(history, appended...))
	if err != nil {
		return Outcome{}, err
	}
	// Without a new snapshot the stream keeps its last one (schema 0 marks none yet).
	snapVersion, snapSchema := int64(0), 0
	if snapshot != nil {
		snapVersion, snapSchema = version, cmd.Snapshot.schema()
	}
	batch.Queue(`INSERT INTO es_streams (stream_id, stream_type, organization_id, version, snapshot, snapshot_version, snapshot_schema)
		VALUES ($1,$2,$3,$4,$6,$7,$8)
		ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version,
			snapshot = COALESCE(EXCLUDED.snapshot, es_streams.snapshot),
			snapshot_version = CASE WHEN EXCLUDED.snapshot IS NULL THEN es_streams.snapshot_version ELSE EXCLUDED.snapshot_version END,
			snapshot_schema = CASE WHEN EXCLUDED.snapshot IS NULL THEN es_streams.snapshot_schema ELSE EXCLUDED.snapshot_schema END
		WHERE es_streams.version = $5`,
		cmd.StreamID, cmd.StreamType, cmd.OrganizationID, version, before, snapshot, snapVersion, snapSchema)
	pos := Position{StreamID: cmd.StreamID, Version: version}
	if cmd.IdempotencyKey != "" {
		batch.Queue(`INSERT INTO es_idempotency (scope, key, request_hash, result, stream_id, stream_version) VALUES ($1,$2,$3,$4,$5,$6)`,
			scope, cmd.IdempotencyKey, cmd.RequestHash, result, pos.StreamID, pos.Version)
	}
	br := tx.SendBatch(ctx, batch)
	for i := 0; i < batch.Len(); i++ {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return Outcome{}, err
		}
		if i == len(decision.Events) && tag.RowsAffected() != 1 {
			br.Close()
			// Only possible if someone bypassed the stream lock.
			return Outcome{}, errs.Conflict("concurrent_modification", "the stream changed while the command ran; retry")
		}
	}
	if err := br.Close(); err != nil {
		return Outcome{}, err
	}
	return Outcome{Result: result, Position: pos}, nil
}

const eventColumns = `event_id, event_type, schema_version, stream_type, stream_id, stream_version, organization_id,
	actor_id, actor_type, occurred_at, recorded_at, idempotency_key, correlation_id, causation_id, payload::text`

func scanEvent(row pgx.Row) (Event, error) {
	var e Event
	err := row.Scan(&e.ID, &e.Type, &e.SchemaVersion, &e.StreamType, &e.StreamID, &e.StreamVersion, &e.OrganizationID,
		&e.Actor.ID, &e.Actor.Type, &e.OccurredAt, &e.RecordedAt, &e.IdempotencyKey, &e.CorrelationID, &e.CausationID, &e.Payload)
	return e, err
}

// querier is a transaction or the pool.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Load returns a stream's whole history for checks outside a command (one
// statement, no transaction).
func (s *Store) Load(ctx context.Context, streamID string) ([]Event, error) {
	return loadLatest(ctx, s.pool, streamID, 0)
}

// LoadLatest is Load starting from the stream's snapshot of the given
// schema, when there is one: credential validation runs it per request.
func (s *Store) LoadLatest(ctx context.Context, streamID string, snapshotSchema int) ([]Event, error) {
	return loadLatest(ctx, s.pool, streamID, snapshotSchema)
}
