package memstore_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/eventstore/memstore"
)

var (
	ctx = context.Background()
	t0  = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
)

func newStore() *memstore.Store { return memstore.New(func() time.Time { return t0 }) }

// command is a command on stream s of organization org.
func command(org, s string) eventstore.Command {
	return eventstore.Command{StreamType: "test.counter", StreamID: s, OrganizationID: org, Actor: eventstore.Actor{ID: "u", Type: "user"}}
}

// appends decides n events "test.counter.added" and answers the history's length.
func appends(n int, extra ...func(*event.Change)) eventstore.Decider {
	return func(history []eventstore.Event) (eventstore.Decision, error) {
		var out []event.Change
		for i := range n {
			c := event.New("test.counter.added", map[string]int{"n": len(history) + i + 1})
			for _, f := range extra {
				f(&c)
			}
			out = append(out, c)
		}
		return eventstore.Decision{Events: out, Result: len(history)}, nil
	}
}

func mustExecute(t *testing.T, s *memstore.Store, cmd eventstore.Command, d eventstore.Decider) eventstore.Outcome {
	t.Helper()
	out, err := s.Execute(ctx, cmd, d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func versions(t *testing.T, s *memstore.Store, stream string) []int64 {
	t.Helper()
	events, err := s.Load(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, e := range events {
		out = append(out, e.StreamVersion)
	}
	return out
}

func TestAppendsNumberStreamsFromOne(t *testing.T) {
	s := newStore()
	out := mustExecute(t, s, command("org", "s1"), appends(2))
	if out.Position != (eventstore.Position{StreamID: "s1", Version: 2}) || string(out.Result) != "0" || out.Replayed {
		t.Fatalf("first command: %+v", out)
	}
	out = mustExecute(t, s, command("org", "s1"), appends(1))
	if out.Position.Version != 3 || string(out.Result) != "2" {
		t.Fatalf("the second command decides on the first one's events: %+v", out)
	}
	events, _ := s.Load(ctx, "s1")
	if got := versions(t, s, "s1"); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("versions %v", got)
	}
	e := events[0]
	if e.Type != "test.counter.added" || e.StreamType != "test.counter" || e.OrganizationID != "org" || e.Actor.ID != "u" ||
		!e.RecordedAt.Equal(t0) || e.ID.String() == "" || e.SchemaVersion != 1 {
		t.Fatalf("envelope %+v", e)
	}
	heads, _ := s.Heads(ctx, "s1", "missing", "s1")
	if len(heads) != 1 || heads["s1"] != 3 {
		t.Fatalf("heads %v", heads)
	}
	out = mustExecute(t, s, command("org", "s1"), appends(0))
	if out.Position.Version != 3 {
		t.Fatalf("a decision without events answers the head: %+v", out)
	}
}

func TestRefusals(t *testing.T) {
	refused := errors.New("refused")
	tests := []struct {
		name    string
		cmd     eventstore.Command
		decide  eventstore.Decider
		kind    errs.Kind
		wantErr error
	}{
		{name: "another tenant's stream reads as missing", cmd: command("other", "s1"), decide: appends(1), kind: errs.KindNotFound},
		{name: "the decision's error", cmd: command("org", "s1"), decide: func([]eventstore.Event) (eventstore.Decision, error) {
			return eventstore.Decision{}, refused
		}, wantErr: refused},
		{name: "a timer without a name", cmd: command("org", "s1"), decide: appends(1, func(c *event.Change) {
			c.Timers = []event.Timer{{Kind: "k", At: t0}}
		})},
		{name: "a result that does not encode", cmd: command("org", "s1"), decide: func([]eventstore.Event) (eventstore.Decision, error) {
			return eventstore.Decision{Events: []event.Change{event.New("test.counter.added", nil)}, Result: func() {}}, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			mustExecute(t, s, command("org", "s1"), appends(1))
			_, err := s.Execute(ctx, tt.cmd, tt.decide)
			switch {
			case err == nil:
				t.Fatal("want an error")
			case tt.kind != 0 && errs.KindOf(err) != tt.kind:
				t.Fatalf("kind %v: %v", errs.KindOf(err), err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("error %v", err)
			}
			if got := versions(t, s, "s1"); len(got) != 1 {
				t.Fatalf("nothing is appended: %v", got)
			}
		})
	}
}

func TestIdempotency(t *testing.T) {
	s := newStore()
	keyed := func(org, key, hash string) eventstore.Command {
		c := command(org, "s1")
		c.IdempotencyKey, c.RequestHash = key, hash
		return c
	}
	first := mustExecute(t, s, keyed("org", "k1", "h1"), appends(1))
	again := mustExecute(t, s, keyed("org", "k1", "h1"), appends(5))
	if !again.Replayed || string(again.Result) != string(first.Result) || again.Position != first.Position {
		t.Fatalf("the same request replays the first answer: %+v vs %+v", again, first)
	}
	if _, err := s.Execute(ctx, keyed("org", "k1", "h2"), appends(1)); errs.KindOf(err) != errs.KindIdempotencyMismatch {
		t.Fatalf("a key reused for another request: %v", err)
	}
	if got := versions(t, s, "s1"); len(got) != 1 {
		t.Fatalf("neither appended: %v", got)
	}
	// Keys are scoped per organization (here on another stream, as the
	// first stream is the first organization's).
	other := keyed("org2", "k1", "h2")
	other.StreamID = "s2"
	if out := mustExecute(t, s, other, appends(1)); out.Replayed {
		t.Fatal("another organization's key is another key")
	}
	// A decision that appends nothing records no key, as the PostgreSQL
	// store rolls it back: the next request with the key decides again.
	mustExecute(t, s, keyed("org", "k2", "h1"), appends(0))
	if out := mustExecute(t, s, keyed("org", "k2", "h9"), appends(1)); out.Replayed || out.Position.Version != 2 {
		t.Fatalf("after an empty decision: %+v", out)
	}
}

func TestUniqueClaims(t *testing.T) {
	s := newStore()
	claim := func(value string, release bool) func(*event.Change) {
		return func(c *event.Change) { c.Unique = []event.Unique{{Kind: "slug", Value: value, Release: release}} }
	}
	mustExecute(t, s, command("org", "a"), appends(1, claim("acme", false)))
	mustExecute(t, s, command("org", "a"), appends(1, claim("acme", false))) // its own claim again
	if holder, _ := s.Holder(ctx, "slug", "acme"); holder != "a" {
		t.Fatalf("holder %q", holder)
	}
	_, err := s.Execute(ctx, command("org", "b"), appends(1, claim("acme", false)))
	if errs.CodeOf(err) != "slug_taken" {
		t.Fatalf("another stream's value: %v", err)
	}
	if got := versions(t, s, "b"); len(got) != 0 {
		t.Fatalf("a refused claim appends nothing: %v", got)
	}
	mustExecute(t, s, command("org", "b"), appends(1, claim("acme", true))) // not b's to release
	if taken, _ := s.Taken(ctx, "slug", "acme"); !taken {
		t.Fatal("only the holder releases a value")
	}
	mustExecute(t, s, command("org", "a"), appends(1, claim("acme", true)))
	mustExecute(t, s, command("org", "b"), appends(1, claim("acme", false)))
	if holder, _ := s.Holder(ctx, "slug", "acme"); holder != "b" {
		t.Fatalf("a released value is free: holder %q", holder)
	}
}

func TestSnapshots(t *testing.T) {
	s := newStore()
	snapshotting := command("org", "s1")
	snapshotting.Snapshot = &eventstore.Snapshotting{Schema: 2}
	withState := func(history []eventstore.Event) (eventstore.Decision, error) {
		d, err := appends(1)(history)
		d.Snapshot = map[string]int{"seen": len(history)}
		return d, err
	}
	mustExecute(t, s, snapshotting, withState)
	mustExecute(t, s, command("org", "s1"), appends(1)) // no snapshot: the last one stays
	history, _ := s.LoadLatest(ctx, "s1", 2)
	if len(history) != 2 || history[0].Type != event.SnapshotType || history[0].StreamVersion != 1 ||
		string(history[0].Payload) != `{"seen":0}` || history[1].StreamVersion != 2 {
		t.Fatalf("from the snapshot: %+v", history)
	}
	if other, _ := s.LoadLatest(ctx, "s1", 3); len(other) != 2 || other[0].Type == event.SnapshotType {
		t.Fatalf("a snapshot of another schema is not read: %+v", other)
	}
	var seen []string
	mustExecute(t, s, snapshotting, func(history []eventstore.Event) (eventstore.Decision, error) {
		for _, e := range history {
			seen = append(seen, e.Type)
		}
		return withState(history)
	})
	if len(seen) != 2 || seen[0] != event.SnapshotType {
		t.Fatalf("a snapshotting command starts from the snapshot: %v", seen)
	}
}

// TestConcurrentCommandsKeepOneOrder: 50 parallel commands on one stream
// each see all the ones before (versions 1..50, no gap), deciding again
// when another committed between their read and their commit.
func TestConcurrentCommandsKeepOneOrder(t *testing.T) {
	s := newStore()
	var runs atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			_, err := s.Execute(ctx, command("org", "s1"), func(history []eventstore.Event) (eventstore.Decision, error) {
				runs.Add(1)
				time.Sleep(time.Millisecond) // let others commit meanwhile
				return appends(1)(history)
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	events, _ := s.Load(ctx, "s1")
	for i, e := range events {
		p, err := eventstore.Decode[map[string]int](e)
		if err != nil || e.StreamVersion != int64(i+1) || p["n"] != i+1 {
			t.Fatalf("event %d: version %d, payload %s", i, e.StreamVersion, e.Payload)
		}
	}
	if len(events) != 50 || runs.Load() <= 50 {
		t.Fatalf("%d events after %d decisions: the optimistic check never made one decide again", len(events), runs.Load())
	}
}

func TestTimers(t *testing.T) {
	s := newStore()
	timer := func(tm event.Timer) func(*event.Change) {
		return func(c *event.Change) { c.Timers = []event.Timer{tm} }
	}
	mustExecute(t, s, command("org", "w"), appends(1, timer(event.ScheduleTimer("start", "k.start", t0.Add(time.Hour), map[string]string{"id": "w"}))))
	first := s.Timers("w")["start"]
	if first.State != memstore.TimerPending || first.Seq != 1 || !first.At.Equal(t0.Add(time.Hour)) || string(first.Payload) != `{"id":"w"}` {
		t.Fatalf("scheduled %+v", first)
	}
	mustExecute(t, s, command("org", "w"), appends(1, timer(event.ScheduleTimer("start", "k.start", t0.Add(2*time.Hour), nil))))
	moved := s.Timers("w")["start"]
	if moved.Seq != 2 || !moved.At.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("moved %+v", moved)
	}
	firing := func(ref eventstore.TimerRef) eventstore.Command {
		c := command("org", "w")
		c.Fires = &ref
		return c
	}
	if _, err := s.Execute(ctx, firing(first.Ref()), appends(1)); !errors.Is(err, eventstore.ErrTimerStale) {
		t.Fatalf("a moved timer's old schedule is stale: %v", err)
	}
	mustExecute(t, s, firing(moved.Ref()), appends(0)) // fired even when the command appends nothing
	if got := s.Timers("w")["start"]; got.State != memstore.TimerFired {
		t.Fatalf("fired %+v", got)
	}
	if _, err := s.Execute(ctx, firing(moved.Ref()), appends(1)); !errors.Is(err, eventstore.ErrTimerStale) {
		t.Fatalf("a timer fires once: %v", err)
	}
	mustExecute(t, s, command("org", "w"), appends(1, timer(event.ScheduleTimer("end", "k.end", t0, nil))))
	mustExecute(t, s, command("org", "w"), appends(1, timer(event.CancelTimer("end"))))
	if got := s.Timers("w")["end"]; got.State != memstore.TimerCancelled {
		t.Fatalf("cancelled %+v", got)
	}
	if got := versions(t, s, "w"); len(got) != 4 {
		t.Fatalf("a stale firing appends nothing: %v", got)
	}
}
