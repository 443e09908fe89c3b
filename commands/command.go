// Package commands holds what every command handler shares: who asks
// (Meta), the event store it writes to (Store), and Run, the one way a
// handler loads a stream, decides and appends (Execute for the usual shape
// of it). One package per bounded context below it holds one file per
// command.
package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// Meta is the context of one command: tenant, principal and request ids.
type Meta struct {
	OrganizationID string
	Actor          eventstore.Actor
	// ActingUser is the user the actor acts as: a session's user, the user
	// an API key acts as (its creator's); "" for system and service actors.
	// Per-user accounting (the gateway's user spend caps) charges it.
	ActingUser     string
	IdempotencyKey string
	RequestHash    string
	CorrelationID  string
	// CausationID is the event that caused the command, when a reactor or
	// a timer issues it (the audit view shows why it happened).
	CausationID string
}

// Clock returns now (time.Now when nil) in UTC at microsecond precision,
// the precision PostgreSQL stores, so a replayed answer equals the first.
func Clock(now func() time.Time) func() time.Time {
	if now == nil {
		now = time.Now
	}
	return func() time.Time { return now().UTC().Truncate(time.Microsecond) }
}

// Result is a command's answer, with the position of its events for
// read-your-writes.
type Result[T any] struct {
	Value    T
	Position eventstore.Position
	Replayed bool
	// Encoded, when set, is Value's JSON encoding, which Run made to record
	// the answer: the HTTP answer writes it instead of encoding Value again.
	// Only a first answer has it (a replay is decoded from its record, which
	// an older version may have written otherwise).
	Encoded json.RawMessage
}

// Decide turns a stream's history into new events and the command's answer.
type Decide[T any] func(history []event.Recorded) ([]event.Change, T, error)

// Outcome is a decision that also keeps write-side tables of its context
// (rows read by Prepare): the events, the answer, and the statements for
// those tables, applied in the command's transaction with the events.
type Outcome[T any] struct {
	Events []event.Change
	Value  T
	Writes []eventstore.Write
}

// Run executes a command against one stream.
func Run[T any](ctx context.Context, store Store, m Meta, streamType, streamID string, decide Decide[T], opts ...Option) (Result[T], error) {
	return RunOutcome(ctx, store, m, streamType, streamID, func(history []event.Recorded) (Outcome[T], error) {
		changes, value, err := decide(history)
		return Outcome[T]{Events: changes, Value: value}, err
	}, opts...)
}

// RunOutcome executes a command whose decision may write its context's own
// write-side tables (Outcome.Writes); with Prepared, it reads them first.
func RunOutcome[T any](ctx context.Context, store Store, m Meta, streamType, streamID string,
	decide func(history []event.Recorded) (Outcome[T], error), opts ...Option) (Result[T], error) {
	o := options{cmd: eventstore.Command{
		StreamType: streamType, StreamID: streamID, OrganizationID: m.OrganizationID, Actor: m.Actor,
		IdempotencyKey: m.IdempotencyKey, RequestHash: m.RequestHash, CorrelationID: m.CorrelationID, CausationID: m.CausationID,
	}}
	for _, opt := range opts {
		opt(&o)
	}
	var decided T      // the answer of the decider's last run: the one recorded
	var encoded []byte // and its encoding
	out, err := store.Execute(ctx, o.cmd, func(history []eventstore.Event) (eventstore.Decision, error) {
		oc, err := decide(Recorded(history))
		if err != nil {
			return eventstore.Decision{}, err
		}
		decided = oc.Value
		// The answer is encoded once, here: it is both the idempotency
		// record's result and, for Snapshots, the stream's snapshot, which
		// the store would otherwise each encode (a json.RawMessage encodes
		// to itself).
		raw, err := json.Marshal(oc.Value)
		if err != nil {
			return eventstore.Decision{}, fmt.Errorf("encode result: %w", err)
		}
		encoded = raw
		d := eventstore.Decision{Events: oc.Events, Result: json.RawMessage(raw), Writes: oc.Writes}
		if o.cmd.Snapshot != nil {
			d.Snapshot = d.Result
			if o.snapshot != nil {
				if d.Snapshot, err = o.snapshot(oc.Value); err != nil {
					return eventstore.Decision{}, err
				}
			}
		}
		if o.also != nil && len(oc.Events) > 0 {
			more, err := o.also(oc.Value)
			if err != nil {
				return eventstore.Decision{}, err
			}
			d.Writes = append(d.Writes, more...)
		}
		return d, nil
	})
	if err != nil {
		return Result[T]{}, err
	}
	// The decided answer is the record's value when its type decodes as it
	// encodes (answer.go); a replay's is only in the record.
	value := decided
	if out.Replayed || !decodesAsEncoded[T]() {
		value, encoded = *new(T), nil
		if err := json.Unmarshal(out.Result, &value); err != nil {
			return Result[T]{}, fmt.Errorf("decode command result: %w", err)
		}
	}
	record(ctx, out.Position)
	return Result[T]{Value: value, Position: out.Position, Replayed: out.Replayed, Encoded: encoded}, nil
}

// Option adjusts how Run loads and saves a stream.
type Option func(*options)

// options are what the Options set: the event store's command, and the
// writes Also derives from the answer.
type options struct {
	cmd      eventstore.Command
	also     func(answer any) ([]eventstore.Write, error)
	snapshot func(answer any) (any, error) // nil: the answer is the snapshot
}

// Snapshots is for commands whose answer is the write model's whole state
// after the decision: Run saves that answer as the stream's snapshot, and
// loads the stream from its latest snapshot of this schema. The write
// model's loader must accept a snapshot (event.SnapshotType) as the first
// record of a history.
func Snapshots(schema int) Option {
	return func(o *options) { o.cmd.Snapshot = &eventstore.Snapshotting{Schema: schema} }
}

// SnapshotsOf is Snapshots for a write model whose answer leaves out part
// of its state (a member clients must not see): the snapshot saved is
// state(answer), which the loader must accept as its first record.
func SnapshotsOf[T any](schema int, state func(T) any) Option {
	return func(o *options) {
		Snapshots(schema)(o)
		o.snapshot = func(answer any) (any, error) {
			v, ok := answer.(T)
			if !ok {
				return nil, fmt.Errorf("commands.SnapshotsOf: answer is %T, not %T", answer, v)
			}
			return state(v), nil
		}
	}
}

// Prepared is for commands that decide from their context's own
// write-side tables as well as their stream: prepare runs in the command's
// transaction after its locks and before the decision, reading (and
// locking) the rows the decision needs.
func Prepared(prepare func(ctx context.Context, tx eventstore.Tx) error) Option {
	return func(o *options) { o.cmd.Prepare = prepare }
}

// FiresTimer is for the command a durable timer issues: the store checks,
// in the command's transaction, that the timer is still due on the schedule
// ref names (eventstore.ErrTimerStale otherwise) and marks it fired when the
// command commits.
func FiresTimer(ref eventstore.TimerRef) Option {
	return func(o *options) { o.cmd.Fires = &ref }
}

// Also adds write-side statements to the command's transaction, computed
// from its answer (the state after its events): a table a hot path reads
// instead of folding a stream (spend caps), or a counter the events are the
// record of (budgets). They run only when the command appends events.
func Also[T any](writes func(T) []eventstore.Write) Option {
	return func(o *options) {
		o.also = func(result any) ([]eventstore.Write, error) {
			v, ok := result.(T)
			if !ok {
				return nil, fmt.Errorf("commands.Also: answer is %T, not %T", result, v)
			}
			return writes(v), nil
		}
	}
}

// IsOutage tells an error that goes away by waiting (the database or the
// broker is down or overloaded, a rate limit) from one that will repeat:
// work issued by machines (reactors, timers) waits the first kind out and
// parks on the second.
func IsOutage(err error) bool {
	if err == nil {
		return false
	}
	if eventstore.IsTransient(err) {
		return true
	}
	k := errs.KindOf(err)
	return k == errs.KindUnavailable || k == errs.KindRateLimited
}

// IsRejection is a refusal by the domain or the input checks (a typed error
// other than an outage or an internal one): trying again decides the same.
func IsRejection(err error) bool {
	if _, typed := errs.As(err); !typed || IsOutage(err) {
		return false
	}
	return errs.KindOf(err) != errs.KindInternal
}

// Recorded is the domain's view of stored events.
func Recorded(history []eventstore.Event) []event.Recorded {
	out := make([]event.Recorded, len(history))
	for i, e := range history {
		out[i] = event.Recorded{Type: e.Type, SchemaVersion: e.SchemaVersion, Version: e.StreamVersion, Payload: e.Payload}
	}
	return out
}
