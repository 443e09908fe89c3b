package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// The kernel on the real stack: a job kind of the tests' own ("test.effect")
// whose outside call is recorded by the test's world, so "once" is counted
// where it happens.

const kindName = "test.effect"

// world is the other side: it records each attempt key that acted.
type world struct {
	mu    sync.Mutex
	acted map[string][]string // job id -> attempt keys that acted
	order []string            // job ids, in the order their calls came
	calls atomic.Int32
}

func newWorld() *world { return &world{acted: map[string][]string{}} }

func (w *world) act(jobID, key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls.Add(1)
	if !slices.Contains(w.acted[jobID], key) { // the other side honours keys
		w.acted[jobID] = append(w.acted[jobID], key)
	}
	w.order = append(w.order, jobID)
}

func (w *world) has(jobID, key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Contains(w.acted[jobID], key)
}

func (w *world) actedKeys(jobID string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.acted[jobID])
}

type in struct {
	N    int    `json:"n"`
	Hang string `json:"hang,omitempty"` // the kill -9 test's worker process: "before" or "after" its call
}

type out struct {
	Key string `json:"key"`
}

type env struct {
	dbURL string
	pool  *pgxpool.Pool
	kafka eventstore.KafkaConfig
	store *eventstore.Store
	cmds  *jobs.Commands
	log   *slog.Logger
	ctx   context.Context
}

var org = "org-jobs"

func meta(key string) commands.Meta {
	return commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "tester", Type: "user"}, IdempotencyKey: key,
		RequestHash: eventstore.HashRequest([]byte(key))}
}

func quiet() *slog.Logger {
	level := slog.LevelError
	if os.Getenv("PLATFORM_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// newEnv is a fresh database and topic prefix, with a relay running (job
// events reach the context's topic, as in platformd).
func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{dbURL: testenv.NewDatabase(t), log: quiet()}
	brokers := testenv.KafkaBrokers(t)
	e.kafka = eventstore.KafkaConfig{Brokers: brokers, Topics: eventstore.Topics{Prefix: testenv.TopicPrefix(t, brokers, "jobs")}}.WithDefaults()
	e.start(t)
	relay, err := eventstore.NewRelay(e.pool, logWriter(t, e.kafka), eventstore.RelayConfig{PollInterval: 20 * time.Millisecond}, e.log)
	if err != nil {
		t.Fatal(err)
	}
	go relay.Run(e.ctx)
	return e
}

func (e *env) start(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e.ctx = ctx
	var err error
	if e.pool, err = pgxpool.New(ctx, e.dbURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.pool.Close)
	if err := eventstore.Migrate(ctx, e.pool); err != nil {
		t.Fatal(err)
	}
	if err := eventstore.EnsureTopics(e.kafka, e.kafka.Topics.ForContext("test")); err != nil {
		t.Fatal(err)
	}
	e.store = eventstore.NewStore(e.pool, e.kafka.Topics)
	e.cmds = jobs.NewCommands(e.store, nil)
}

func logWriter(t *testing.T, kc eventstore.KafkaConfig) eventstore.LogWriter {
	w, err := eventstore.NewKafkaLogWriter(kc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// spec is the tests' kind against a world; tests adjust it.
func spec(w *world) jobs.Spec[in, out] {
	return jobs.Spec[in, out]{
		Name: kindName,
		Do: func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
			w.act(a.JobID, a.Key)
			return out{Key: a.Key}, nil
		},
		Probe: func(ctx context.Context, a *jobs.Attempt[in]) (out, bool, error) {
			return out{Key: a.Key}, w.has(a.JobID, a.Key), nil
		},
		Retry: domain.RetryPolicy{MaxAttempts: 3, Backoff: 300 * time.Millisecond, MaxBackoff: time.Second},
		Lease: 2 * time.Second, Timeout: 30 * time.Second, Concurrency: 4,
	}
}

func (e *env) define(t *testing.T, s jobs.Spec[in, out]) *jobs.Def[in, out] {
	t.Helper()
	return e.defineOn(t, e.cmds, s)
}

// defineOn defines the kind on commands of its own: another process's.
func (e *env) defineOn(t *testing.T, cmds *jobs.Commands, s jobs.Spec[in, out]) *jobs.Def[in, out] {
	t.Helper()
	d, err := jobs.Define(cmds, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type running struct {
	w      *jobs.Worker
	cancel context.CancelFunc
	done   chan struct{}
}

// stop ends the worker and waits for it.
func (r *running) stop() {
	r.cancel()
	<-r.done
}

// runWorker runs a worker of the kinds and the context's job timers, as a
// "test-jobs" process would.
func (e *env) runWorker(t *testing.T, group string, kinds ...jobs.Kind) *running {
	t.Helper()
	w, err := jobs.NewWorker("test", kinds, jobs.Config{Kafka: e.kafka}, e.log)
	if err != nil {
		t.Fatal(err)
	}
	if group != "" {
		w.SetGroup(group)
	}
	reg := timers.NewRegistry()
	if err := w.RegisterTimers(reg); err != nil {
		t.Fatal(err)
	}
	sched, err := timers.NewScheduler(e.pool, reg, timers.Config{PollInterval: 50 * time.Millisecond, Backoff: 100 * time.Millisecond,
		MaxBackoff: 500 * time.Millisecond}, e.log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	r := &running{w: w, cancel: cancel, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() { _ = w.Run(ctx) })
	wg.Go(func() { _ = sched.Run(ctx) })
	go func() { wg.Wait(); close(r.done) }()
	t.Cleanup(r.stop)
	return r
}

func (e *env) request(t *testing.T, d *jobs.Def[in, out], id string, input in, priority int) domain.Job {
	t.Helper()
	res, err := d.Request(e.ctx, meta("request:"+id), id, input, jobs.RequestOptions{Priority: priority})
	if err != nil {
		t.Fatal(err)
	}
	return res.Value
}

func (e *env) wait(t *testing.T, d *jobs.Def[in, out], id string, timeout time.Duration, state string) domain.Job {
	t.Helper()
	var j domain.Job
	apptest.Eventually(t, timeout, "job "+id+" "+state, func() bool {
		var err error
		j, err = d.Load(e.ctx, org, id)
		return err == nil && j.State == state
	})
	return j
}

// events are the job's event types, in order.
func (e *env) events(t *testing.T, id string) []domain.Event {
	t.Helper()
	history, err := e.store.Load(e.ctx, domain.StreamID(kindName, id))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]domain.Event, len(history))
	for i, h := range history {
		if out[i], err = eventstore.Decode[domain.Event](h); err != nil {
			t.Fatal(err)
		}
		out[i].Reason = strings.TrimPrefix(h.Type, "test.job.") // the type's name, for the assertions
	}
	return out
}

func names(evs []domain.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Reason)
	}
	return out
}

// TestOnceUnderTwoWorkers: two worker processes in one consumer group share
// 40 jobs, and two more in groups of their own see every job too (each
// record delivered to three workers): each job is claimed and acted on
// once, at attempt 1, whoever got it. (Each worker has commands of its
// own, as a process does; the requester has no worker.)
func TestOnceUnderTwoWorkers(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	d := e.define(t, spec(w))
	var claimedBy sync.Map
	s := spec(w)
	for i, group := range []string{"", "", ".other", ".third"} {
		s.Do = func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
			if prev, dup := claimedBy.LoadOrStore(a.JobID, i); dup {
				t.Errorf("job %s ran in worker %d after worker %v", a.JobID, i, prev)
			}
			time.Sleep(20 * time.Millisecond)
			w.act(a.JobID, a.Key)
			return out{Key: a.Key}, nil
		}
		e.runWorker(t, group, e.defineOn(t, jobs.NewCommands(e.store, nil), s))
	}
	const n = 40
	for i := range n {
		e.request(t, d, fmt.Sprintf("job-%02d", i), in{N: i}, 0)
	}
	for i := range n {
		j := e.wait(t, d, fmt.Sprintf("job-%02d", i), 60*time.Second, domain.Succeeded)
		if j.Attempt != 1 {
			t.Errorf("%s: %d attempts", j.ID, j.Attempt)
		}
		res, err := jobs.Result[out](j)
		if err != nil || res.Key != domain.AttemptKey(kindName, j.ID, 1) {
			t.Errorf("%s: result %+v %v", j.ID, res, err)
		}
	}
	time.Sleep(500 * time.Millisecond) // a second run would show now
	if c := w.calls.Load(); c != n {
		t.Fatalf("%d calls for %d jobs", c, n)
	}
	workers := map[any]bool{}
	claimedBy.Range(func(_, v any) bool { workers[v] = true; return true })
	t.Logf("%d jobs run by %d workers", n, len(workers))
}

// TestLeaseExpiryIsReconciledByTheProbe: a worker claims a job and dies
// (nothing renews or records). When the lease runs out the probe is
// asked: found, the job succeeded with that attempt and nothing acts again;
// not found, a second attempt (a new key) acts, once.
func TestLeaseExpiryIsReconciledByTheProbe(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	d := e.define(t, spec(w))
	acted := e.request(t, d, "acted", in{}, 0)
	lost := e.request(t, d, "lost", in{}, 0)
	for _, j := range []domain.Job{acted, lost} {
		n, err := jobs.ClaimAsDeadWorker(e.ctx, d, org, j.ID)
		if err != nil || n != 1 {
			t.Fatalf("claim %s: %d %v", j.ID, n, err)
		}
	}
	w.act("acted", domain.AttemptKey(kindName, "acted", 1)) // the dead worker's call went through
	start := time.Now()
	e.runWorker(t, "", d)
	got := e.wait(t, d, "acted", 30*time.Second, domain.Succeeded)
	if got.Attempt != 1 || time.Since(start) < time.Second {
		t.Fatalf("acted: attempt %d after %s (the lease is 2s)", got.Attempt, time.Since(start))
	}
	if evs := names(e.events(t, "acted")); !slices.Equal(evs, []string{"requested", "claimed", "succeeded"}) {
		t.Fatalf("acted: %v", evs)
	}
	got = e.wait(t, d, "lost", 30*time.Second, domain.Succeeded)
	if got.Attempt != 2 {
		t.Fatalf("lost: attempt %d, want 2", got.Attempt)
	}
	if evs := names(e.events(t, "lost")); !slices.Equal(evs, []string{"requested", "claimed", "requeued", "claimed", "succeeded"}) {
		t.Fatalf("lost: %v", evs)
	}
	time.Sleep(500 * time.Millisecond)
	if k := w.actedKeys("acted"); len(k) != 1 {
		t.Fatalf("acted: %v", k)
	}
	if k := w.actedKeys("lost"); len(k) != 1 || k[0] != domain.AttemptKey(kindName, "lost", 2) {
		t.Fatalf("lost: %v", k)
	}
	if c := w.calls.Load(); c != 2 {
		t.Fatalf("%d calls, want 2 (the dead worker's and lost's second attempt)", c)
	}
}

// TestUnconfirmedIsProbedAfterItsWait: Do says it cannot tell (a timeout
// after the call); the probe is asked once its wait passed, before
// anything else; one that cannot tell yet (Later) is asked again.
func TestUnconfirmedIsProbedAfterItsWait(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	s := spec(w)
	var probed atomic.Int32
	var firstAt atomic.Int64
	s.Do = func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
		w.act(a.JobID, a.Key)
		return out{}, jobs.Unconfirmed("no answer", map[string]string{"pending": "p-1"}, time.Second)
	}
	s.Probe = func(ctx context.Context, a *jobs.Attempt[in]) (out, bool, error) {
		var detail map[string]string
		if json.Unmarshal(a.Detail, &detail) != nil || detail["pending"] != "p-1" {
			t.Errorf("probe detail %s", a.Detail)
		}
		if probed.Add(1) == 1 {
			firstAt.Store(time.Now().UnixNano())
			return out{}, false, jobs.Later("not visible yet")
		}
		return out{Key: a.Key}, w.has(a.JobID, a.Key), nil
	}
	d := e.define(t, s)
	e.runWorker(t, "", d)
	start := time.Now()
	e.request(t, d, "u", in{}, 0)
	e.wait(t, d, "u", 15*time.Second, domain.Unconfirmed)
	got := e.wait(t, d, "u", 30*time.Second, domain.Succeeded)
	if got.Attempt != 1 || probed.Load() != 2 || time.Unix(0, firstAt.Load()).Sub(start) < time.Second {
		t.Fatalf("attempt %d, %d probes, first after %s", got.Attempt, probed.Load(), time.Unix(0, firstAt.Load()).Sub(start))
	}
	if w.calls.Load() != 1 {
		t.Fatalf("%d calls", w.calls.Load())
	}
}

// TestRetriesWaitOnTimers: retryable failures are tried again after the
// policy's doubling backoff (300ms, 600ms), on durable timers; the third
// failure of three attempts is final; a person's retry runs it again.
func TestRetriesWaitOnTimers(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	s := spec(w)
	var mu sync.Mutex
	at := map[string][]time.Time{}
	s.Do = func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
		mu.Lock()
		at[a.JobID] = append(at[a.JobID], time.Now())
		tries := len(at[a.JobID])
		mu.Unlock()
		if a.JobID == "flaky" && tries == 3 || a.JobID == "broken" && tries == 4 {
			w.act(a.JobID, a.Key)
			return out{Key: a.Key}, nil
		}
		return out{}, jobs.Retryable("unavailable", "the other side failed", 0)
	}
	d := e.define(t, s)
	e.runWorker(t, "", d)
	e.request(t, d, "flaky", in{}, 0)
	e.request(t, d, "broken", in{N: 1}, 0)
	got := e.wait(t, d, "flaky", 30*time.Second, domain.Succeeded)
	mu.Lock()
	times := at["flaky"]
	mu.Unlock()
	if got.Attempt != 3 || len(times) != 3 || times[1].Sub(times[0]) < 300*time.Millisecond || times[2].Sub(times[1]) < 600*time.Millisecond {
		t.Fatalf("attempt %d at %v", got.Attempt, times)
	}
	broken := e.wait(t, d, "broken", 30*time.Second, domain.Failed)
	apptest.Eventually(t, 10*time.Second, "final failure", func() bool {
		broken, _ = d.Load(e.ctx, org, "broken")
		return broken.Settled()
	})
	if broken.Attempt != 3 || broken.Failure.Code != "unavailable" || broken.Failure.RetryAt != nil {
		t.Fatalf("%+v %+v", broken, broken.Failure)
	}
	time.Sleep(time.Second) // no fourth attempt comes by itself
	if n := len(at["broken"]); n != 3 {
		t.Fatalf("%d attempts", n)
	}
	if _, err := d.Retry(e.ctx, meta("retry:broken"), "broken"); err != nil {
		t.Fatal(err)
	}
	if got := e.wait(t, d, "broken", 30*time.Second, domain.Succeeded); got.Attempt != 4 || got.Tries != 1 {
		t.Fatalf("after a person's retry: attempt %d tries %d", got.Attempt, got.Tries)
	}
	if _, err := d.Retry(e.ctx, meta("retry:broken:2"), "broken"); errs.CodeOf(err) != "invalid_transition" {
		t.Fatalf("retry of a succeeded job: %v", err)
	}
}

// TestCancellation: a cancelled queued job is never claimed; a running
// one's Do is cancelled, and a success it returns afterwards changes
// nothing: the job stays cancelled.
func TestCancellation(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	s := spec(w)
	started, release := make(chan struct{}), make(chan struct{})
	var sawCancel atomic.Bool
	s.Do = func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
		if a.JobID == "running" {
			close(started)
			<-ctx.Done() // the worker stops the attempt
			sawCancel.Store(true)
			<-release // and it answers success later all the same
		}
		w.act(a.JobID, a.Key)
		return out{Key: a.Key}, nil
	}
	d := e.define(t, s)
	e.request(t, d, "queued", in{}, 0)
	res, err := d.Cancel(e.ctx, meta("cancel:queued"), "queued", "not needed")
	if err != nil || res.Value.State != domain.Cancelled {
		t.Fatalf("%+v %v", res.Value, err)
	}
	e.runWorker(t, "", d)
	e.request(t, d, "running", in{}, 0)
	<-started
	if _, err := d.Cancel(e.ctx, meta("cancel:running"), "running", "changed my mind"); err != nil {
		t.Fatal(err)
	}
	apptest.Eventually(t, 10*time.Second, "Do's context cancelled", sawCancel.Load)
	close(release)
	e.request(t, d, "after", in{}, 0) // a job requested after both: its success shows the worker went on
	e.wait(t, d, "after", 20*time.Second, domain.Succeeded)
	time.Sleep(300 * time.Millisecond)
	for _, id := range []string{"queued", "running"} {
		j, err := d.Load(e.ctx, org, id)
		if err != nil || j.State != domain.Cancelled {
			t.Fatalf("%s: %+v %v", id, j, err)
		}
	}
	if evs := names(e.events(t, "queued")); !slices.Equal(evs, []string{"requested", "cancelled"}) {
		t.Fatalf("queued: %v", evs)
	}
	if evs := names(e.events(t, "running")); !slices.Equal(evs, []string{"requested", "claimed", "cancelled"}) {
		t.Fatalf("running: %v", evs)
	}
	if _, err := d.Cancel(e.ctx, meta("cancel:again"), "running", ""); errs.CodeOf(err) != "invalid_transition" {
		t.Fatalf("cancel of a cancelled job: %v", err)
	}
	other := meta("cancel:other")
	other.OrganizationID = "org-other"
	if _, err := d.Cancel(e.ctx, other, "after", ""); errs.KindOf(err) != errs.KindNotFound {
		t.Fatalf("another organization's job: %v", err)
	}
	if _, err := d.Load(e.ctx, "org-other", "after"); errs.KindOf(err) != errs.KindNotFound {
		t.Fatalf("another organization's job: %v", err)
	}
}

// TestPriorityOrdersTheQueue: with one runner busy, jobs queued meanwhile
// run highest priority first, then in the order requested.
func TestPriorityOrdersTheQueue(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	s := spec(w)
	s.Concurrency = 1
	gate := make(chan struct{})
	s.Do = func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
		if a.JobID == "gate" {
			<-gate
		}
		w.act(a.JobID, a.Key)
		return out{}, nil
	}
	d := e.define(t, s)
	r := e.runWorker(t, "", d)
	e.request(t, d, "gate", in{}, 0)
	e.wait(t, d, "gate", 20*time.Second, domain.Running)
	queued := []struct {
		id       string
		priority int
	}{{"p0-a", 0}, {"p5-a", 5}, {"p10", 10}, {"p0-b", 0}, {"p5-b", 5}, {"p3", 3}}
	for _, q := range queued {
		e.request(t, d, q.id, in{}, q.priority)
	}
	apptest.Eventually(t, 20*time.Second, "the worker holds every queued job", func() bool { return r.w.Stats().Held >= len(queued) })
	close(gate)
	e.wait(t, d, "p0-b", 20*time.Second, domain.Succeeded)
	w.mu.Lock()
	order := slices.Clone(w.order)
	w.mu.Unlock()
	if want := []string{"gate", "p10", "p5-a", "p5-b", "p3", "p0-a", "p0-b"}; !slices.Equal(order, want) {
		t.Fatalf("ran %v, want %v", order, want)
	}
}

// TestProgressIsRecorded: Do's progress reaches the job (progressed
// events, at most about once a second), and 100 once it succeeded.
func TestProgressIsRecorded(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	s := spec(w)
	var seen []int
	var mu sync.Mutex
	s.Do = func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
		for _, p := range []int{30, 70} {
			a.Progress(p)
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) { // until the job shows it
				j, err := e.cmds.LoadForTest(ctx, org, kindName, a.JobID)
				if err == nil && j.Progress == p {
					mu.Lock()
					seen = append(seen, p)
					mu.Unlock()
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		return out{}, nil
	}
	d := e.define(t, s)
	e.runWorker(t, "", d)
	e.request(t, d, "progress", in{}, 0)
	got := e.wait(t, d, "progress", 30*time.Second, domain.Succeeded)
	if got.Progress != 100 || !slices.Equal(seen, []int{30, 70}) {
		t.Fatalf("progress %d, seen %v", got.Progress, seen)
	}
	var progressed []int
	for _, ev := range e.events(t, "progress") {
		if ev.Reason == "progressed" {
			progressed = append(progressed, ev.Job.Progress)
		}
	}
	if !slices.Equal(progressed, []int{30, 70}) {
		t.Fatalf("progressed events %v", progressed)
	}
}

// TestKillNineOfAWorkerProcess: a worker process (this test binary again,
// as a "test-jobs" process) is killed with SIGKILL in the middle of two
// jobs: one after its call reached the other side, one before. Another
// worker reconciles both through the probe: the first succeeds with the
// dead process's attempt, the second is attempted again; each acts once.
func TestKillNineOfAWorkerProcess(t *testing.T) {
	if os.Getenv("JOBS_CHILD") != "" {
		t.Skip("the child runs TestWorkerProcess")
	}
	e := newEnv(t)
	w := newWorld()
	calledAfter := make(chan struct{}, 1)
	fake := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		job, key := r.URL.Query().Get("job"), r.URL.Query().Get("key")
		switch r.Method {
		case http.MethodPost:
			w.act(job, key)
			if job == "after" {
				select {
				case calledAfter <- struct{}{}:
				default:
				}
			}
		case http.MethodGet:
			if !w.has(job, key) {
				rw.WriteHeader(http.StatusNotFound)
			}
		}
	}))
	t.Cleanup(fake.Close)
	d := e.define(t, httpSpec(fake.URL, false))
	child := exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$", "-test.count=1")
	child.Env = append(os.Environ(), "JOBS_CHILD=1", "JOBS_CHILD_DB="+e.dbURL, "JOBS_CHILD_BROKERS="+strings.Join(e.kafka.Brokers, ","),
		"JOBS_CHILD_PREFIX="+e.kafka.Topics.Prefix, "JOBS_CHILD_FAKE="+fake.URL)
	child.Stdout, child.Stderr = io.Discard, io.Discard
	if os.Getenv("PLATFORM_TEST_LOG") != "" {
		child.Stdout, child.Stderr = os.Stderr, os.Stderr
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	e.request(t, d, "after", in{Hang: "after"}, 0)
	e.request(t, d, "before", in{Hang: "before"}, 0)
	select {
	case <-calledAfter:
	case <-time.After(60 * time.Second):
		t.Fatal("the worker process never made its call")
	}
	e.wait(t, d, "before", 30*time.Second, domain.Running)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	killed := time.Now()
	e.runWorker(t, "", d)
	after := e.wait(t, d, "after", 60*time.Second, domain.Succeeded)
	before := e.wait(t, d, "before", 60*time.Second, domain.Succeeded)
	t.Logf("settled %s after the kill", time.Since(killed).Round(time.Millisecond))
	if after.Attempt != 1 || before.Attempt != 2 {
		t.Fatalf("attempts: after %d (want 1: found by the probe), before %d (want 2)", after.Attempt, before.Attempt)
	}
	time.Sleep(500 * time.Millisecond)
	if k := w.actedKeys("after"); len(k) != 1 {
		t.Fatalf("after: acted %v", k)
	}
	if k := w.actedKeys("before"); len(k) != 1 || k[0] != domain.AttemptKey(kindName, "before", 2) {
		t.Fatalf("before: acted %v", k)
	}
	if c := w.calls.Load(); c != 2 {
		t.Fatalf("%d calls reached the other side, want 2", c)
	}
}

// httpSpec is the kill -9 test's kind: its call is a POST to the test's
// fake, its probe a GET. In the child, an input's Hang makes the attempt
// hang before or after its call, until the process is killed.
func httpSpec(fakeURL string, child bool) jobs.Spec[in, out] {
	call := func(ctx context.Context, method string, a *jobs.Attempt[in]) (int, error) {
		req, err := http.NewRequestWithContext(ctx, method, fakeURL+"?job="+a.JobID+"&key="+a.Key, nil)
		if err != nil {
			return 0, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	return jobs.Spec[in, out]{
		Name: kindName,
		Do: func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
			if child && a.Input.Hang == "before" {
				select {}
			}
			if _, err := call(ctx, http.MethodPost, a); err != nil {
				return out{}, err
			}
			if child && a.Input.Hang == "after" {
				select {}
			}
			return out{Key: a.Key}, nil
		},
		Probe: func(ctx context.Context, a *jobs.Attempt[in]) (out, bool, error) {
			status, err := call(ctx, http.MethodGet, a)
			if err != nil {
				return out{}, false, err
			}
			return out{Key: a.Key}, status == http.StatusOK, nil
		},
		Lease: 2 * time.Second, Timeout: time.Hour,
	}
}

// TestWorkerProcess is the kill -9 test's worker process.
func TestWorkerProcess(t *testing.T) {
	if os.Getenv("JOBS_CHILD") == "" {
		t.Skip("run by TestKillNineOfAWorkerProcess")
	}
	e := &env{dbURL: os.Getenv("JOBS_CHILD_DB"), log: quiet(),
		kafka: eventstore.KafkaConfig{Brokers: strings.Split(os.Getenv("JOBS_CHILD_BROKERS"), ","),
			Topics: eventstore.Topics{Prefix: os.Getenv("JOBS_CHILD_PREFIX")}}.WithDefaults()}
	e.start(t)
	d := e.define(t, httpSpec(os.Getenv("JOBS_CHILD_FAKE"), true))
	e.runWorker(t, "", d)
	<-e.ctx.Done() // until killed
}

// TestChangedIsToldOfEachAttempt: the kind's Changed hears, in the
// worker's process, each attempt claimed and settled, with the job after it.
func TestChangedIsToldOfEachAttempt(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	s := spec(w)
	var mu sync.Mutex
	var heard []string
	s.Changed = func(ctx context.Context, j domain.Job) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, fmt.Sprintf("%s@%d", j.State, j.Attempt))
	}
	s.Do = func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
		if a.Number == 1 {
			return out{}, jobs.Retryable("busy", "try later", 0)
		}
		return out{Key: a.Key}, nil
	}
	d := e.define(t, s)
	e.runWorker(t, "", d)
	e.request(t, d, "told", in{}, 0)
	e.wait(t, d, "told", 30*time.Second, domain.Succeeded)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"running@1", "failed@1", "running@2", "succeeded@2"}; !slices.Equal(heard, want) {
		t.Fatalf("heard %v, want %v", heard, want)
	}
}

// TestGuardsAndFailureDetail: a context's guard refuses a cancellation or a
// report under the job's lock before the kernel decides (nothing
// recorded); a failure's detail is kept on the job.
func TestGuardsAndFailureDetail(t *testing.T) {
	e := newEnv(t)
	w := newWorld()
	s := spec(w)
	s.Do = func(ctx context.Context, a *jobs.Attempt[in]) (out, error) {
		return out{}, jobs.FailWith("refused", "no", false, 0, map[string]string{"provider": "p2"})
	}
	d := e.define(t, s)
	e.request(t, d, "guarded", in{}, 0)
	refuse := func(j domain.Job) error { return errs.Conflict("invalid_transition", "the context says no: "+j.State) }
	if _, err := d.Cancel(e.ctx, meta("cancel:guarded"), "guarded", "", refuse); errs.CodeOf(err) != "invalid_transition" {
		t.Fatalf("guarded cancel: %v", err)
	}
	if _, err := d.Report(e.ctx, meta("report:guarded"), "guarded", 0, out{}, nil, refuse); errs.CodeOf(err) != "invalid_transition" {
		t.Fatalf("guarded report: %v", err)
	}
	if evs := names(e.events(t, "guarded")); !slices.Equal(evs, []string{"requested"}) {
		t.Fatalf("events after refused commands: %v", evs)
	}
	e.runWorker(t, "", d)
	j := e.wait(t, d, "guarded", 20*time.Second, domain.Failed)
	var detail map[string]string
	if j.Failure != nil {
		_ = json.Unmarshal(j.Failure.Detail, &detail)
	}
	if j.Failure == nil || j.Failure.Code != "refused" || detail["provider"] != "p2" || j.Failure.RetryAt != nil {
		t.Fatalf("failure %+v", j.Failure)
	}
	pass := func(domain.Job) error { return nil }
	if res, err := d.Cancel(e.ctx, meta("cancel:passed"), "guarded", "", pass); err != nil || res.Value.State != domain.Cancelled {
		t.Fatalf("cancel passing the guard: %+v %v", res.Value, err)
	}
}
