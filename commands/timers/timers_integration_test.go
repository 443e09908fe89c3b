package timers_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/testenv"
)

// The tests' aggregate: an alarm stream whose "set" command schedules (or
// moves, or cancels) its timer "ring", and whose "ring" command, the one the
// timer issues, appends a rang event.
const (
	streamType = "status.alarm" // any context's topic: no relay runs here
	kindRing   = "test.alarm.ring"
	typeSet    = "test.alarm.set"
	typeRang   = "test.alarm.rang"
)

var org = "org-timers"

type env struct {
	pool  *pgxpool.Pool
	store *eventstore.Store
	log   *slog.Logger
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testenv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := eventstore.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	return &env{pool: pool, store: eventstore.NewStore(pool, eventstore.Topics{Prefix: "timers"}),
		log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))}
}

// set schedules the alarm's timer at at (cancel: removes it).
func (e *env) set(t *testing.T, alarm string, at time.Time, cancel bool) {
	t.Helper()
	tm := event.ScheduleTimer("ring", kindRing, at, map[string]string{"alarm": alarm})
	if cancel {
		tm = event.CancelTimer("ring")
	}
	_, err := commands.Run(context.Background(), e.store, commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "t", Type: "system"}},
		streamType, alarm, func(history []event.Recorded) ([]event.Change, int, error) {
			c := event.New(typeSet, map[string]any{"at": at, "cancel": cancel})
			c.Timers = []event.Timer{tm}
			return []event.Change{c}, len(history) + 1, nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// ring is the timer's command: it appends a rang event.
func (e *env) ring(ctx context.Context, f timers.Fire, opts ...commands.Option) (commands.Result[int], error) {
	return commands.Run(ctx, e.store, f.Meta, streamType, f.StreamID, func(history []event.Recorded) ([]event.Change, int, error) {
		return []event.Change{event.New(typeRang, map[string]any{"due": f.DueAt})}, len(history) + 1, nil
	}, opts...)
}

func (e *env) scheduler(t *testing.T, cfg timers.Config, h timers.Handler) *timers.Scheduler {
	t.Helper()
	reg := timers.NewRegistry()
	if err := reg.Register(kindRing, h); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(kindRing, h); err == nil {
		t.Fatal("a kind registered twice must be refused")
	}
	s, err := timers.NewScheduler(e.pool, reg, cfg, e.log)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *env) rang(t *testing.T, alarm string) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type=$2`,
		alarm, typeRang).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

type timerRow struct {
	State           string
	Tries, Failures int
	LastError       *string
	DueAt           time.Time
}

func (e *env) row(t *testing.T, alarm string) timerRow {
	t.Helper()
	var r timerRow
	if err := e.pool.QueryRow(context.Background(), `SELECT state, tries, failures, last_error, due_at FROM es_timers
		WHERE stream_id=$1 AND name='ring'`, alarm).Scan(&r.State, &r.Tries, &r.Failures, &r.LastError, &r.DueAt); err != nil {
		t.Fatal(err)
	}
	return r
}

func tick(t *testing.T, s *timers.Scheduler) int {
	t.Helper()
	n, err := s.Tick(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A timer fires once its time has come, once: its command and the fired
// mark commit together, and a later tick finds nothing.
func TestTimerFiresOnceAfterItsTime(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	s := e.scheduler(t, timers.Config{}, func(ctx context.Context, f timers.Fire) error {
		calls.Add(1)
		if f.OrganizationID != org || f.Meta.IdempotencyKey != timers.IdempotencyKey(f.Timer) || f.Meta.Actor.Type != "system" {
			return errors.New("unexpected fire: " + f.Key())
		}
		var p map[string]string
		if err := json.Unmarshal(f.Payload, &p); err != nil || p["alarm"] != "a1" {
			return errors.New("payload lost")
		}
		_, err := e.ring(ctx, f, f.Option())
		return err
	})
	e.set(t, "a1", time.Now().Add(700*time.Millisecond), false)
	if n := tick(t, s); n != 0 || calls.Load() != 0 {
		t.Fatalf("fired before its time: claimed %d, calls %d", n, calls.Load())
	}
	time.Sleep(time.Second)
	if n := tick(t, s); n != 1 {
		t.Fatalf("claimed %d due timers, want 1", n)
	}
	tick(t, s)
	if calls.Load() != 1 || e.rang(t, "a1") != 1 {
		t.Fatalf("calls %d, rang %d: want 1 and 1", calls.Load(), e.rang(t, "a1"))
	}
	if r := e.row(t, "a1"); r.State != "fired" {
		t.Fatalf("timer state %q, want fired", r.State)
	}
}

// A timer whose time passed while no scheduler ran fires late, once, when
// one starts (Run, the loop platformd runs).
func TestTimerFiresLateAfterDowntime(t *testing.T) {
	e := newEnv(t)
	e.set(t, "late", time.Now().Add(200*time.Millisecond), false)
	time.Sleep(1500 * time.Millisecond) // "down" past its time
	var calls atomic.Int32
	s := e.scheduler(t, timers.Config{PollInterval: 50 * time.Millisecond}, func(ctx context.Context, f timers.Fire) error {
		calls.Add(1)
		_, err := e.ring(ctx, f, f.Option())
		return err
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for e.rang(t, "late") == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // a few more polls
	cancel()
	<-done
	if calls.Load() != 1 || e.rang(t, "late") != 1 {
		t.Fatalf("calls %d, rang %d: want 1 and 1", calls.Load(), e.rang(t, "late"))
	}
}

// A later command of the stream moves the timer (the old time passes
// without a fire) or cancels it; a move back schedules it again.
func TestTimerMovedAndCancelled(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	s := e.scheduler(t, timers.Config{}, func(ctx context.Context, f timers.Fire) error {
		calls.Add(1)
		_, err := e.ring(ctx, f, f.Option())
		return err
	})
	past := time.Now().Add(-time.Second)
	e.set(t, "moved", past, false)
	e.set(t, "moved", time.Now().Add(time.Hour), false)
	e.set(t, "cancelled", past, false)
	e.set(t, "cancelled", time.Time{}, true)
	tick(t, s)
	if calls.Load() != 0 {
		t.Fatalf("a moved or cancelled timer fired (%d calls)", calls.Load())
	}
	if r := e.row(t, "moved"); r.State != "pending" || r.DueAt.Before(time.Now().Add(50*time.Minute)) {
		t.Fatalf("moved timer: %+v", r)
	}
	if r := e.row(t, "cancelled"); r.State != "cancelled" {
		t.Fatalf("cancelled timer: %+v", r)
	}
	// Rescheduling a cancelled timer brings it back.
	e.set(t, "cancelled", past, false)
	tick(t, s)
	if calls.Load() != 1 || e.rang(t, "cancelled") != 1 || e.rang(t, "moved") != 0 {
		t.Fatalf("calls %d, rang cancelled %d, moved %d", calls.Load(), e.rang(t, "cancelled"), e.rang(t, "moved"))
	}
}

// A timer moved between its claim and its command does not fire on the old
// schedule: the store sees the new seq under the row lock (ErrTimerStale),
// and the moved timer stays pending for its new time.
func TestTimerMovedWhileFiringIsStale(t *testing.T) {
	e := newEnv(t)
	var errSeen error
	s := e.scheduler(t, timers.Config{}, func(ctx context.Context, f timers.Fire) error {
		e.set(t, "race", time.Now().Add(time.Hour), false) // another command moves it now
		_, err := e.ring(ctx, f, f.Option())
		errSeen = err
		return err
	})
	e.set(t, "race", time.Now().Add(-time.Second), false)
	tick(t, s)
	if !errors.Is(errSeen, eventstore.ErrTimerStale) || timers.Classify(errSeen) != timers.OutcomeStale {
		t.Fatalf("want ErrTimerStale, got %v", errSeen)
	}
	if e.rang(t, "race") != 0 {
		t.Fatal("a timer moved while firing fired on its old schedule")
	}
	if r := e.row(t, "race"); r.State != "pending" || r.DueAt.Before(time.Now().Add(50*time.Minute)) {
		t.Fatalf("the moved timer must stay pending for its new time: %+v", r)
	}
}

// Two schedulers (two processes: pools of their own) racing on the same due
// timers fire each exactly once.
func TestTimerTwoSchedulersFireOnce(t *testing.T) {
	e := newEnv(t)
	const n = 30
	due := time.Now().Add(300 * time.Millisecond)
	for i := range n {
		e.set(t, "race-"+string(rune('a'+i%26))+string(rune('a'+i/26)), due, false)
	}
	var calls atomic.Int32
	handler := func(ctx context.Context, f timers.Fire) error {
		calls.Add(1)
		_, err := e.ring(ctx, f, f.Option())
		return err
	}
	other, err := pgxpool.New(context.Background(), e.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	cfg := timers.Config{PollInterval: 20 * time.Millisecond, BatchSize: 4}
	s1 := e.scheduler(t, cfg, handler)
	reg := timers.NewRegistry()
	_ = reg.Register(kindRing, handler)
	s2, err := timers.NewScheduler(other, reg, cfg, e.log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, s := range []*timers.Scheduler{s1, s2} {
		wg.Go(func() { _ = s.Run(ctx) })
	}
	deadline := time.Now().Add(15 * time.Second)
	var fired int
	for time.Now().Before(deadline) {
		if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM es_timers WHERE state='fired'`).Scan(&fired); err != nil {
			t.Fatal(err)
		}
		if fired == n {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	cancel()
	wg.Wait()
	var events int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM es_events WHERE event_type=$1`, typeRang).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if fired != n || events != n || calls.Load() != n {
		t.Fatalf("fired %d, rang %d, handler calls %d: want %d each", fired, events, calls.Load(), n)
	}
}

// A crash between the command and the timer's mark cannot fire twice: a
// handler whose command did not carry the timer (so nothing marked it) and
// then failed is tried again, and its command, under the same idempotency
// key, is a replay.
func TestTimerRetriedAfterCrashIsAReplay(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	s := e.scheduler(t, timers.Config{Backoff: 10 * time.Millisecond, MaxBackoff: 10 * time.Millisecond}, func(ctx context.Context, f timers.Fire) error {
		res, err := e.ring(ctx, f) // no Option: only the idempotency key protects it
		if err != nil {
			return err
		}
		if calls.Add(1) == 1 {
			return errors.New("process died before the mark") // untyped: tried again
		}
		if !res.Replayed {
			return errors.New("the second fire was not a replay")
		}
		return nil
	})
	e.set(t, "crash", time.Now().Add(-time.Second), false)
	tick(t, s)
	if r := e.row(t, "crash"); r.State != "pending" || r.Failures != 1 {
		t.Fatalf("after the failed fire: %+v", r)
	}
	time.Sleep(50 * time.Millisecond)
	tick(t, s)
	if r := e.row(t, "crash"); r.State != "fired" {
		t.Fatalf("after the retry: %+v (last error %v)", r, r.LastError)
	}
	if calls.Load() != 2 || e.rang(t, "crash") != 1 {
		t.Fatalf("calls %d, rang %d: want 2 and 1", calls.Load(), e.rang(t, "crash"))
	}
}

// Outages are tried again without end; a rejection by the domain parks the
// timer at once with its reason; a repeating failure parks it after
// Attempts.
func TestTimerOutcomes(t *testing.T) {
	e := newEnv(t)
	fail := map[string]error{
		"outage":   errs.Unavailable("database down", nil),
		"rejected": errs.Conflict("invalid_transition", "cannot"),
		"broken":   errors.New("bug"),
	}
	s := e.scheduler(t, timers.Config{Attempts: 2, Backoff: 10 * time.Millisecond, MaxBackoff: 10 * time.Millisecond},
		func(ctx context.Context, f timers.Fire) error { return fail[f.StreamID] })
	for a := range fail {
		e.set(t, a, time.Now().Add(-time.Second), false)
	}
	for range 4 {
		tick(t, s)
		time.Sleep(30 * time.Millisecond)
	}
	if r := e.row(t, "outage"); r.State != "pending" || r.Tries < 3 || r.Failures != 0 {
		t.Fatalf("outage: %+v", r)
	}
	if r := e.row(t, "rejected"); r.State != "failed" || r.Failures != 1 || r.LastError == nil {
		t.Fatalf("rejected: %+v", r)
	}
	if r := e.row(t, "broken"); r.State != "failed" || r.Failures != 2 || r.LastError == nil || *r.LastError != "bug" {
		t.Fatalf("broken: %+v", r)
	}
	// A parked timer comes back when its stream schedules it again.
	e.set(t, "rejected", time.Now().Add(time.Hour), false)
	if r := e.row(t, "rejected"); r.State != "pending" || r.Failures != 0 {
		t.Fatalf("rescheduled parked timer: %+v", r)
	}
}

// A fired timer whose command decides nothing is marked fired all the same.
func TestTimerWithNothingToDoIsFired(t *testing.T) {
	e := newEnv(t)
	s := e.scheduler(t, timers.Config{}, func(ctx context.Context, f timers.Fire) error {
		_, err := commands.Run(ctx, e.store, f.Meta, streamType, f.StreamID, func([]event.Recorded) ([]event.Change, int, error) {
			return nil, 0, nil
		}, f.Option())
		return err
	})
	e.set(t, "noop", time.Now().Add(-time.Second), false)
	tick(t, s)
	if r := e.row(t, "noop"); r.State != "fired" {
		t.Fatalf("timer %+v, want fired", r)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  timers.Config
		ok   bool
	}{
		{"defaults", timers.Config{}, true},
		{"negative poll", timers.Config{PollInterval: -time.Second}, false},
		{"lease not above the fire timeout", timers.Config{Lease: time.Second, FireTimeout: 2 * time.Second}, false},
		{"max backoff below backoff", timers.Config{Backoff: time.Minute, MaxBackoff: time.Second}, false},
		{"zero attempts", timers.Config{Attempts: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.WithDefaults().Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want timers.Outcome
	}{
		{nil, timers.OutcomeFired},
		{eventstore.ErrTimerStale, timers.OutcomeStale},
		{errs.Unavailable("x", nil), timers.OutcomeOutage},
		{errs.RateLimited(1), timers.OutcomeOutage},
		{errs.NotFound("maintenance"), timers.OutcomeRejected},
		{errs.InvalidField("/a", "b"), timers.OutcomeRejected},
		{errors.New("bug"), timers.OutcomeFailed},
	}
	for _, tt := range tests {
		if got := timers.Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
