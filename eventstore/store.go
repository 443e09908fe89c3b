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
	// Fires, when set, is the durable timer this command fires: its row is
	// locked and checked in the command's transaction (ErrTimerStale when it
	// was moved, cancelled or fired meanwhile) and marked fired when the
	// command commits, even when the decision appends nothing.
	Fires *TimerRef
	// Prepare, when set, runs in the command's transaction after its locks
	// and before the decision: it reads (and may lock, FOR UPDATE) rows of
	// the context's own write-side tables that the decision needs, which
	// the decider sees through its closure. It is not run for a replayed
	// idempotent request.
	Prepare func(ctx context.Context, tx Tx) error
}

// Write is one write-side statement of a command (Decision.Writes).
type Write struct {
	SQL  string
	Args []any
}

// NewEvent is what a decision returns: the store fills in the envelope.
type NewEvent = event.Change

// Decision is the outcome of a command's domain logic: the events to append
// and the result to return (and to replay for the same idempotency key).
type Decision struct {
	Events []NewEvent
	Result any
	// Snapshot is the write model's state after Events, saved on the stream
	// head when the command uses snapshots (Command.Snapshot).
	Snapshot any
	// Writes change the context's own write-side tables in the command's
	// transaction, with the events (nothing is written without events).
	Writes []Write
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
// idempotency key and the stream, loads the stream (from its snapshot when
// the command uses snapshots), decides, appends the events, advances the
// stream head, writes the events' timer changes and records the idempotency
// key.
//
// The transaction takes two round trips: BEGIN, the locks and the reads are
// pipelined in one, the writes and COMMIT in the other (measured: a command
// in seven round trips cost more CPU in syscalls than in SQL).
func (s *Store) Execute(ctx context.Context, cmd Command, decide Decider) (Outcome, error) {
	topic, err := s.topics.ForStreamType(cmd.StreamType)
	if err != nil {
		return Outcome{}, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return Outcome{}, classify(err)
	}
	// A connection left inside a transaction is destroyed on release, never reused.
	defer conn.Release()
	out, err := s.execute(ctx, conn.Conn(), topic, cmd, decide)
	if err != nil {
		if conn.Conn().PgConn().TxStatus() != 'I' {
			if _, rbErr := conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`); rbErr != nil {
				conn.Conn().Close(context.WithoutCancel(ctx)) //nolint:errcheck
			}
		}
		return Outcome{}, classify(err)
	}
	return out, nil
}

// classify tells a database that is down or overloaded (503, retry) from a
// statement the database refused (a bug: 500).
func classify(err error) error {
	if _, typed := errs.As(err); typed || errors.Is(err, context.Canceled) || errors.Is(err, ErrTimerStale) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505" && pgErr.ConstraintName == "es_events_stream_id_stream_version_key":
			// Only possible if a writer bypassed the stream lock.
			return errs.Conflict("concurrent_modification", "the stream changed while the command ran; retry")
		case pgErr.SQLState()[:2] == "08", pgErr.SQLState()[:2] == "53", pgErr.SQLState()[:2] == "57":
			// connection exception, insufficient resources, operator intervention
		default:
			return err
		}
	}
	return errs.Unavailable("the event store could not record the command", err)
}

// previous is what an earlier request with the same idempotency key left.
type previous struct {
	found  bool
	hash   string
	result []byte
	pos    Position
}

// begin is the first round trip: open the transaction, take the locks (key
// first, then stream: no deadlock between commands), read the idempotency
// record and the stream.
func begin(ctx context.Context, conn *pgx.Conn, cmd Command) (previous, []Event, error) {
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	if cmd.IdempotencyKey != "" {
		b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended($1, 1))`, cmd.OrganizationID+":"+cmd.IdempotencyKey)
		b.Queue(`SELECT request_hash, result, stream_id, stream_version FROM es_idempotency WHERE scope=$1 AND key=$2`,
			cmd.OrganizationID, cmd.IdempotencyKey)
	}
	b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended($1, 2))`, cmd.StreamID)
	queueLoad(b, cmd.StreamID, cmd.Snapshot.schema())
	queueTimerCheck(b, cmd.Fires)
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	var prev previous
	if _, err := br.Exec(); err != nil {
		return prev, nil, err
	}
	if cmd.IdempotencyKey != "" {
		if _, err := br.Exec(); err != nil {
			return prev, nil, err
		}
		err := br.QueryRow().Scan(&prev.hash, &prev.result, &prev.pos.StreamID, &prev.pos.Version)
		switch {
		case err == nil:
			prev.found = true
		case !errors.Is(err, pgx.ErrNoRows):
			return prev, nil, err
		}
	}
	if _, err := br.Exec(); err != nil {
		return prev, nil, err
	}
	history, err := readLoad(br, cmd.StreamID, cmd.Snapshot.schema())
	if err != nil {
		return prev, nil, err
	}
	if err := readTimerCheck(br, cmd.Fires); err != nil {
		return prev, nil, err
	}
	return prev, history, br.Close()
}

func (s *Store) execute(ctx context.Context, conn *pgx.Conn, topic string, cmd Command, decide Decider) (Outcome, error) {
	prev, history, err := begin(ctx, conn, cmd)
	if err != nil {
		return Outcome{}, err
	}
	if prev.found {
		if _, err := conn.Exec(ctx, `ROLLBACK`); err != nil {
			return Outcome{}, err
		}
		if prev.hash != cmd.RequestHash {
			return Outcome{}, errs.IdempotencyMismatch()
		}
		return Outcome{Result: prev.result, Position: prev.pos, Replayed: true}, nil
	}
	if len(history) > 0 && history[0].OrganizationID != cmd.OrganizationID {
		// Another tenant's stream id is indistinguishable from a missing one.
		return Outcome{}, errs.NotFound(cmd.StreamType)
	}
	if err := prepare(ctx, conn, cmd); err != nil {
		return Outcome{}, err
	}
	decision, err := decide(history)
	if err != nil {
		return Outcome{}, err
	}
	result, err := json.Marshal(decision.Result)
	if err != nil {
		return Outcome{}, fmt.Errorf("encode result: %w", err)
	}
	version := headVersion(history)
	if len(decision.Events) == 0 {
		// A fired timer whose command decides nothing is fired all the same
		// (its time came; there was nothing left to do).
		end := &pgx.Batch{}
		queueTimerFired(end, cmd.Fires)
		if cmd.Fires != nil {
			end.Queue(`COMMIT`)
		} else {
			end.Queue(`ROLLBACK`)
		}
		if err := conn.SendBatch(ctx, end).Close(); err != nil {
			return Outcome{}, err
		}
		return Outcome{Result: result, Position: Position{StreamID: cmd.StreamID, Version: version}}, nil
	}
	if err := claimUnique(ctx, conn, cmd.StreamID, decision.Events); err != nil {
		return Outcome{}, err
	}
	batch := &pgx.Batch{}
	pos, err := queueAppend(batch, topic, cmd, version, decision, result, s.now().UTC())
	if err != nil {
		return Outcome{}, err
	}
	// COMMIT rides in the same round trip. The optimistic check is the
	// unique (stream_id, stream_version) of es_events: a version written by
	// anyone else fails the insert, the server skips the rest of the
	// pipeline, COMMIT included, and Execute rolls back.
	batch.Queue(`COMMIT`)
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		return Outcome{}, err
	}
	return Outcome{Result: result, Position: pos}, nil
}

// queueAppend queues what a command that appends writes after its decision:
// the events (versions from version + 1), the stream head, the fired timer,
// the events' timers, the decision's writes and the idempotency record.
func queueAppend(batch *pgx.Batch, topic string, cmd Command, version int64, decision Decision, result []byte, now time.Time) (Position, error) {
	for _, ne := range decision.Events {
		version++
		payload, err := json.Marshal(ne.Payload)
		if err != nil {
			return Position{}, fmt.Errorf("encode %s: %w", ne.Type, err)
		}
		id, err := uuid.NewV7()
		if err != nil {
			return Position{}, err
		}
		batch.Queue(`INSERT INTO es_events (event_id, stream_type, stream_id, stream_version, event_type, schema_version,
			organization_id, actor_id, actor_type, occurred_at, recorded_at, idempotency_key, correlation_id, causation_id, payload, topic)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$10,$11,$12,$13,$14,$15)`,
			id, cmd.StreamType, cmd.StreamID, version, ne.Type, max(ne.SchemaVersion, 1),
			cmd.OrganizationID, cmd.Actor.ID, cmd.Actor.Type, now, cmd.IdempotencyKey, cmd.CorrelationID, cmd.CausationID, payload, topic)
	}
	if err := queueHead(batch, cmd, version, decision.Snapshot); err != nil {
		return Position{}, err
	}
	queueTimerFired(batch, cmd.Fires)
	if err := queueTimers(batch, cmd, decision.Events); err != nil {
		return Position{}, err
	}
	queueWrites(batch, decision.Writes)
	pos := Position{StreamID: cmd.StreamID, Version: version}
	if cmd.IdempotencyKey != "" {
		batch.Queue(`INSERT INTO es_idempotency (scope, key, request_hash, result, stream_id, stream_version) VALUES ($1,$2,$3,$4,$5,$6)`,
			cmd.OrganizationID, cmd.IdempotencyKey, cmd.RequestHash, result, pos.StreamID, pos.Version)
	}
	return pos, nil
}

// queueHead moves the stream head, with the new snapshot when the command
// takes snapshots (a command without one keeps the stream's last snapshot).
func queueHead(b *pgx.Batch, cmd Command, version int64, state any) error {
	var snapshot []byte
	snapVersion, snapSchema := int64(0), 0
	if schema := cmd.Snapshot.schema(); schema > 0 && state != nil {
		var err error
		if snapshot, err = json.Marshal(state); err != nil {
			return fmt.Errorf("encode snapshot: %w", err)
		}
		snapVersion, snapSchema = version, schema
	}
	b.Queue(`INSERT INTO es_streams (stream_id, stream_type, organization_id, version, snapshot, snapshot_version, snapshot_schema)
		VALUES ($1,$2,$3,$4,$5,$6,$7)
		ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version,
			snapshot = COALESCE(EXCLUDED.snapshot, es_streams.snapshot),
			snapshot_version = CASE WHEN EXCLUDED.snapshot IS NULL THEN es_streams.snapshot_version ELSE EXCLUDED.snapshot_version END,
			snapshot_schema = CASE WHEN EXCLUDED.snapshot IS NULL THEN es_streams.snapshot_schema ELSE EXCLUDED.snapshot_schema END`,
		cmd.StreamID, cmd.StreamType, cmd.OrganizationID, version, snapshot, snapVersion, snapSchema)
	return nil
}

const eventColumns = `event_id, event_type, schema_version, stream_type, stream_id, stream_version, organization_id,
	actor_id, actor_type, occurred_at, recorded_at, idempotency_key, correlation_id, causation_id, payload::text`

func scanEvent(row pgx.Row) (Event, error) {
	var e Event
	err := row.Scan(&e.ID, &e.Type, &e.SchemaVersion, &e.StreamType, &e.StreamID, &e.StreamVersion, &e.OrganizationID,
		&e.Actor.ID, &e.Actor.Type, &e.OccurredAt, &e.RecordedAt, &e.IdempotencyKey, &e.CorrelationID, &e.CausationID, &e.Payload)
	return e, err
}

// Load returns a stream's whole history for checks outside a command (one
// statement, no transaction).
func (s *Store) Load(ctx context.Context, streamID string) ([]Event, error) {
	return s.LoadLatest(ctx, streamID, 0)
}

// LoadLatest is Load starting from the stream's snapshot of the given
// schema, when there is one: credential validation runs it per request.
func (s *Store) LoadLatest(ctx context.Context, streamID string, snapshotSchema int) ([]Event, error) {
	b := &pgx.Batch{}
	queueLoad(b, streamID, snapshotSchema)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	history, err := readLoad(br, streamID, snapshotSchema)
	if err != nil {
		return nil, err
	}
	return history, br.Close()
}

// Heads returns the current version of each given stream that exists (one
// indexed query): a write model decoded at a version is current exactly
// while its stream's head has not moved.
func (s *Store) Heads(ctx context.Context, streamIDs ...string) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT stream_id, version FROM es_streams WHERE stream_id = ANY($1)`, streamIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	heads := make(map[string]int64, len(streamIDs))
	for rows.Next() {
		var id string
		var v int64
		if err := rows.Scan(&id, &v); err != nil {
			return nil, err
		}
		heads[id] = v
	}
	return heads, rows.Err()
}

// Querier is what reads need of a pool, a connection or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// LoadRange returns the events of a stream with versions from..to, in
// order and upcast: a reader that finds a hole in a stream on the log fills
// it from here.
func LoadRange(ctx context.Context, q Querier, streamID string, from, to int64) ([]Event, error) {
	rows, err := q.Query(ctx, `SELECT `+eventColumns+` FROM es_events
		WHERE stream_id = $1 AND stream_version BETWEEN $2 AND $3 ORDER BY stream_version`, streamID, from, to)
	if err != nil {
		return nil, err
	}
	events, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Event, error) { return scanEvent(r) })
	if err != nil {
		return nil, err
	}
	for i := range events {
		if events[i], err = Upcast(events[i]); err != nil {
			return nil, err
		}
	}
	return events, nil
}
