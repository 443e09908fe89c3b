// Package memstore is an event store in memory with the contract of the
// PostgreSQL one (eventstore.Store, as commands.Store names it): stream
// versions with an optimistic check, the tenant of a stream, idempotency
// records that replay a first answer and refuse a key reused for another
// request, unique claims, snapshots and durable timers. Command handlers
// run on it in unit tests; nothing is published, and nothing survives the
// process.
package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// Store keeps streams, idempotency records, unique claims and timers.
// A command reads under the store's lock, decides outside it and commits
// under it again if nothing it read has moved meanwhile (the stream's
// head, the idempotency key, the timer it fires); otherwise it decides
// again on what is there now, as eventstore.Decider allows. Commands on
// one stream thus apply one after the other, as under the PostgreSQL
// store's stream lock.
type Store struct {
	now func() time.Time

	mu      sync.Mutex
	streams map[string]*stream
	replies map[replyKey]reply
	unique  map[uniqueKey]string // the stream holding each value
	timers  map[timerKey]*Timer
}

type stream struct {
	streamType, organizationID string
	events                     []eventstore.Event
	snapshot                   json.RawMessage
	snapshotVersion            int64
	snapshotSchema             int
}

func (s *stream) head() int64 {
	if s == nil || len(s.events) == 0 {
		return 0
	}
	return s.events[len(s.events)-1].StreamVersion
}

// replyKey is an idempotency key in its scope (the command's organization).
type replyKey struct{ scope, key string }

type reply struct {
	requestHash string
	result      json.RawMessage
	position    eventstore.Position
}

type uniqueKey struct{ kind, value string }

// New is an empty store whose events are recorded at now (time.Now when nil).
func New(now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{now: now, streams: map[string]*stream{}, replies: map[replyKey]reply{},
		unique: map[uniqueKey]string{}, timers: map[timerKey]*Timer{}}
}

// maxAttempts bounds how often a command decides again because another
// command moved what it read: only endless contention on one stream
// reaches it.
const maxAttempts = 1000

// Execute runs one command as eventstore.Store.Execute does.
func (s *Store) Execute(ctx context.Context, cmd eventstore.Command, decide eventstore.Decider) (eventstore.Outcome, error) {
	for range maxAttempts {
		if err := ctx.Err(); err != nil {
			return eventstore.Outcome{}, err
		}
		r, err := s.read(cmd)
		if err != nil {
			return eventstore.Outcome{}, err
		}
		if r.replay != nil {
			return r.answerReplay(cmd)
		}
		if len(r.history) > 0 && r.history[0].OrganizationID != cmd.OrganizationID {
			// Another tenant's stream id is indistinguishable from a missing one.
			return eventstore.Outcome{}, errs.NotFound(cmd.StreamType)
		}
		decision, err := decide(r.history)
		if err != nil {
			return eventstore.Outcome{}, err
		}
		result, err := json.Marshal(decision.Result)
		if err != nil {
			return eventstore.Outcome{}, fmt.Errorf("encode result: %w", err)
		}
		out, moved, err := s.commit(cmd, r, decision, result)
		if moved {
			continue
		}
		return out, err
	}
	return eventstore.Outcome{}, errs.Conflict("concurrent_modification", "the stream changed while the command ran; retry")
}

// read is what a command saw before deciding.
type read struct {
	replay  *reply
	history []eventstore.Event
	head    int64
	timer   int64 // seq of the fired timer when the command fires one
}

func (r read) answerReplay(cmd eventstore.Command) (eventstore.Outcome, error) {
	if r.replay.requestHash != cmd.RequestHash {
		return eventstore.Outcome{}, errs.IdempotencyMismatch()
	}
	return eventstore.Outcome{Result: r.replay.result, Position: r.replay.position, Replayed: true}, nil
}

func (s *Store) read(cmd eventstore.Command) (read, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var r read
	if cmd.IdempotencyKey != "" {
		if prev, ok := s.replies[replyKey{cmd.OrganizationID, cmd.IdempotencyKey}]; ok {
			r.replay = &prev
			return r, nil
		}
	}
	schema := 0
	if cmd.Snapshot != nil {
		schema = cmd.Snapshot.Schema
	}
	history, err := s.latest(cmd.StreamID, schema)
	if err != nil {
		return r, err
	}
	r.history, r.head = history, s.streams[cmd.StreamID].head()
	if cmd.Fires != nil {
		if r.timer, err = s.pendingTimer(*cmd.Fires); err != nil {
			return r, err
		}
	}
	return r, nil
}

// commit writes the decision unless what the command read has moved
// (moved: decide again). A decision without events records nothing but
// the fired timer, like the PostgreSQL store's rolled-back transaction.
func (s *Store) commit(cmd eventstore.Command, r read, d eventstore.Decision, result json.RawMessage) (eventstore.Outcome, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, replied := s.replies[replyKey{cmd.OrganizationID, cmd.IdempotencyKey}]; cmd.IdempotencyKey != "" && replied {
		return eventstore.Outcome{}, true, nil
	}
	if s.streams[cmd.StreamID].head() != r.head { // the optimistic check
		return eventstore.Outcome{}, true, nil
	}
	if cmd.Fires != nil {
		if seq, err := s.pendingTimer(*cmd.Fires); err != nil || seq != r.timer {
			return eventstore.Outcome{}, true, nil
		}
	}
	pos := eventstore.Position{StreamID: cmd.StreamID, Version: r.head}
	if len(d.Events) == 0 {
		s.fire(cmd.Fires)
		return eventstore.Outcome{Result: result, Position: pos}, false, nil
	}
	claims, err := s.claims(cmd.StreamID, d.Events)
	if err != nil {
		return eventstore.Outcome{}, false, err
	}
	events, err := s.envelopes(cmd, r.head, d.Events)
	if err != nil {
		return eventstore.Outcome{}, false, err
	}
	timers, err := s.scheduled(cmd, d.Events)
	if err != nil {
		return eventstore.Outcome{}, false, err
	}
	var snapshot json.RawMessage
	if cmd.Snapshot != nil && cmd.Snapshot.Schema > 0 && d.Snapshot != nil {
		if snapshot, err = json.Marshal(d.Snapshot); err != nil {
			return eventstore.Outcome{}, false, fmt.Errorf("encode snapshot: %w", err)
		}
	}
	// Nothing below fails: the command's writes land together or not at all.
	st := s.streams[cmd.StreamID]
	if st == nil {
		st = &stream{streamType: cmd.StreamType, organizationID: cmd.OrganizationID}
		s.streams[cmd.StreamID] = st
	}
	st.events = append(st.events, events...)
	pos.Version = st.head()
	if snapshot != nil {
		st.snapshot, st.snapshotVersion, st.snapshotSchema = snapshot, pos.Version, cmd.Snapshot.Schema
	}
	for k, holder := range claims {
		if holder == "" {
			delete(s.unique, k)
		} else {
			s.unique[k] = holder
		}
	}
	s.fire(cmd.Fires)
	s.schedule(cmd, timers)
	if cmd.IdempotencyKey != "" {
		s.replies[replyKey{cmd.OrganizationID, cmd.IdempotencyKey}] = reply{requestHash: cmd.RequestHash, result: result, position: pos}
	}
	return eventstore.Outcome{Result: result, Position: pos}, false, nil
}

// claims are the unique values the events claim (holder: the stream) and
// release (holder ""), or <kind>_taken when another stream holds a value
// claimed.
func (s *Store) claims(streamID string, changes []event.Change) (map[uniqueKey]string, error) {
	out := map[uniqueKey]string{}
	holder := func(k uniqueKey) string {
		if h, ok := out[k]; ok {
			return h
		}
		return s.unique[k]
	}
	for _, c := range changes {
		for _, u := range c.Unique {
			k := uniqueKey{u.Kind, u.Value}
			switch h := holder(k); {
			case u.Release && h == streamID:
				out[k] = ""
			case u.Release:
			case h == "" || h == streamID:
				out[k] = streamID
			default:
				return nil, errs.Conflict(u.Kind+"_taken", "this "+u.Kind+" is already taken")
			}
		}
	}
	return out, nil
}

// envelopes are the decided events as the store records them, after head.
func (s *Store) envelopes(cmd eventstore.Command, head int64, changes []event.Change) ([]eventstore.Event, error) {
	now := s.now().UTC()
	out := make([]eventstore.Event, 0, len(changes))
	for _, c := range changes {
		payload, err := json.Marshal(c.Payload)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", c.Type, err)
		}
		id, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		head++
		out = append(out, eventstore.Event{ID: id, Type: c.Type, SchemaVersion: max(c.SchemaVersion, 1),
			StreamType: cmd.StreamType, StreamID: cmd.StreamID, StreamVersion: head, OrganizationID: cmd.OrganizationID,
			Actor: cmd.Actor, OccurredAt: now, RecordedAt: now, IdempotencyKey: cmd.IdempotencyKey,
			CorrelationID: cmd.CorrelationID, CausationID: cmd.CausationID, Payload: payload})
	}
	return out, nil
}

// Load returns a stream's whole history (nil for a stream without events).
func (s *Store) Load(_ context.Context, streamID string) ([]eventstore.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest(streamID, 0)
}

// LoadLatest is Load from the stream's snapshot of the given schema, when
// there is one: a first event of type event.SnapshotType, then the events
// after it.
func (s *Store) LoadLatest(_ context.Context, streamID string, snapshotSchema int) ([]eventstore.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest(streamID, snapshotSchema)
}

func (s *Store) latest(streamID string, schema int) ([]eventstore.Event, error) {
	st := s.streams[streamID]
	if st == nil {
		return nil, nil
	}
	var out []eventstore.Event
	from := int64(0)
	if schema > 0 && st.snapshot != nil && st.snapshotSchema == schema {
		out = append(out, eventstore.Event{Type: event.SnapshotType, SchemaVersion: schema, StreamType: st.streamType,
			StreamID: streamID, StreamVersion: st.snapshotVersion, OrganizationID: st.organizationID, Payload: st.snapshot})
		from = st.snapshotVersion
	}
	for _, e := range st.events {
		if e.StreamVersion <= from {
			continue
		}
		e, err := eventstore.Upcast(e)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Heads returns the current version of each given stream that exists.
func (s *Store) Heads(_ context.Context, streamIDs ...string) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(streamIDs))
	for _, id := range slices.Compact(slices.Sorted(slices.Values(streamIDs))) {
		if st := s.streams[id]; st != nil {
			out[id] = st.head()
		}
	}
	return out, nil
}

// Holder is the stream holding a unique value, "" when none.
func (s *Store) Holder(_ context.Context, kind, value string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unique[uniqueKey{kind, value}], nil
}

// Taken reports whether a stream holds a unique value.
func (s *Store) Taken(ctx context.Context, kind, value string) (bool, error) {
	holder, err := s.Holder(ctx, kind, value)
	return holder != "", err
}
