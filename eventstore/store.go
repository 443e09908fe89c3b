package eventstore

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/internal/groupcommit"
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
	group  *groupcommit.Queue[BatchItem, BatchResult]

	notifyMu sync.Mutex
	notify   atomic.Pointer[map[string]bool] // stream types whose appends NOTIFY (NotifyHeads)
	watches  atomic.Pointer[[]*HeadWatch]    // this process's watches (announce)

	known *knownStreams // histories kept from this process's writes
}

func NewStore(pool *pgxpool.Pool, topics Topics) *Store {
	s := &Store{pool: pool, topics: topics, now: time.Now, known: newKnownStreams()}
	s.group = groupcommit.New(func(ctx context.Context, items []BatchItem) []BatchResult {
		start := time.Now()
		defer func() {
			commandFlushes.Inc()
			commandsFlushed.Add(float64(len(items)))
			commandFlushSeconds.Add(time.Since(start).Seconds())
		}()
		return s.ExecuteBatch(ctx, items, nil)
	}, maxBatch)
	return s
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
	// New says the stream is new: its id was made for this command (a
	// gateway call's usage stream is named by the call's request id), so
	// it is decided on an empty history without reading the stream, and a
	// transaction of such commands is one round trip instead of two (locks,
	// appends and COMMIT together). If the stream exists after all (the
	// command retried after an ambiguous commit), its first version is
	// taken, the append fails on it and rolls back, and the transaction
	// runs again the usual way: read, decided on what is there. Only for a
	// command without an idempotency key, timer, Prepare or snapshots, and
	// whose decision claims no unique value (one that does is decided again
	// the usual way).
	New bool
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
// stream head, writes the events' timer changes and records the
// idempotency key.
//
// Concurrent commands share transactions (a group commit, ExecuteBatch):
// while one transaction runs, the commands that arrive queue, and the next
// transaction takes them all, each decided on its own stream under its own
// locks and answered with its own result or error. Execute returns once
// its command has committed (or failed), so an answer still means durable,
// while a burst of commands pays one commit, one WAL flush and two round
// trips per transaction instead of per command (one when its streams are
// new or known: knownStreams); a lone command runs at
// once (no timer to wait for). It waits for that transaction even when ctx
// ends meanwhile: the command may be committing.
//
// A command with a Prepare runs in a transaction of its own: its reads of
// the context's tables (and the decision on them) must see every earlier
// command's writes to those tables, which batch-mates write only at the
// end of the shared transaction.
func (s *Store) Execute(ctx context.Context, cmd Command, decide Decider) (Outcome, error) {
	var r BatchResult
	if cmd.Prepare != nil {
		r = s.executeAlone(ctx, BatchItem{Command: cmd, Decide: decide})
	} else {
		var err error
		start := time.Now()
		r, err = s.group.Do(ctx, BatchItem{Command: cmd, Decide: decide})
		commandWaitSeconds.Add(time.Since(start).Seconds())
		if err != nil {
			return Outcome{}, err
		}
	}
	return r.Outcome, r.Err
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
	// In a transaction of its own only for genericPlans (one round trip).
	b := &pgx.Batch{}
	b.Queue(`BEGIN READ ONLY`)
	b.Queue(genericPlans)
	specs := []readSpec{{streamID: streamID, schema: snapshotSchema}}
	queueReads(b, specs)
	b.Queue(`COMMIT`)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release() // left inside the transaction (an error), it is destroyed, never reused
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	for range 2 {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	reads, err := readReads(br, specs)
	if err != nil {
		return nil, err
	}
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	return reads[0].history, br.Close()
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
