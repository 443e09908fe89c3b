package jobs

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var policy = RetryPolicy{MaxAttempts: 3, Backoff: 10 * time.Second, MaxBackoff: time.Minute}

// apply folds changes into the job the way the store would (Load of the
// appended history), so versions advance.
func apply(t *testing.T, j *Job, changes []event.Change) *Job {
	t.Helper()
	history := make([]event.Recorded, 0, len(changes))
	v := j.version
	for _, c := range changes {
		v++
		b, err := json.Marshal(c.Payload)
		if err != nil {
			t.Fatal(err)
		}
		history = append(history, event.Recorded{Type: c.Type, Version: v, Payload: b})
	}
	if len(history) == 0 {
		return j
	}
	out, err := Load(history)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func types(changes []event.Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Type)
	}
	return out
}

func requested(t *testing.T) *Job {
	t.Helper()
	j := &Job{}
	ch, err := j.Request(Request{ID: "j1", Kind: "test.echo", OrganizationID: "org", Priority: 5, Input: json.RawMessage(`{"a":1}`)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return apply(t, j, ch)
}

func claimed(t *testing.T) *Job {
	t.Helper()
	j := requested(t)
	ch, attempt := j.Claim(j.Version(), time.Minute, t0)
	if attempt != 1 {
		t.Fatalf("claimed attempt %d", attempt)
	}
	return apply(t, j, ch)
}

func TestEventTypesAreTheContexts(t *testing.T) {
	want := []string{"studio.job.requested", "studio.job.claimed", "studio.job.progressed", "studio.job.succeeded",
		"studio.job.failed", "studio.job.unconfirmed", "studio.job.requeued", "studio.job.cancelled"}
	if got := EventTypes("studio"); !slices.Equal(got, want) {
		t.Fatalf("%v", got)
	}
	if TypesOf("studio").Cancelled != "studio.job.cancelled" || StreamID("studio.render", "x") != "job:studio.render:x" {
		t.Fatal("names")
	}
	if AttemptKey("studio.render", "x", 2) != "job:studio.render:x:attempt:2" {
		t.Fatal(AttemptKey("studio.render", "x", 2))
	}
}

func TestRequestIsOnceAndBounded(t *testing.T) {
	j := requested(t)
	if j.State != Queued || j.Priority != 5 || j.Version() != 1 {
		t.Fatalf("%+v", j)
	}
	ch, err := j.Request(Request{ID: "j1", Kind: "test.echo", Input: json.RawMessage(`{"other":true}`)}, t0)
	if err != nil || ch != nil {
		t.Fatalf("a second request: %v %v", ch, err)
	}
	for _, bad := range []Request{{Kind: "test.echo"}, {ID: "x", Kind: "nodot"}, {ID: "x", Kind: "t.k", Priority: 101},
		{ID: "x", Kind: "t.k", Priority: -1}, {ID: "a\x00b", Kind: "t.k"}, {ID: "x", Kind: "t.k", Input: json.RawMessage(`{`)}} {
		if _, err := (&Job{}).Request(bad, t0); errs.KindOf(err) != errs.KindInvalidInput {
			t.Errorf("%+v: %v, want invalid", bad, err)
		}
	}
}

func TestClaimChecksTheVersionItSaw(t *testing.T) {
	j := requested(t)
	if ch, a := j.Claim(0, time.Minute, t0); ch != nil || a != 0 {
		t.Fatal("claimed at a version it did not see")
	}
	ch, a := j.Claim(1, time.Minute, t0)
	j = apply(t, j, ch)
	if a != 1 || j.State != Running || j.Tries != 1 || j.LeaseUntil == nil || !j.LeaseUntil.Equal(t0.Add(time.Minute)) {
		t.Fatalf("%+v", j)
	}
	if tm := ch[0].Timers; len(tm) != 1 || tm[0].Name != TimerReconcile || tm[0].Kind != "test.job.reconcile" || !tm[0].At.Equal(t0.Add(time.Minute)) {
		t.Fatalf("timers %+v", tm)
	}
	if ch, a := j.Claim(1, time.Minute, t0); ch != nil || a != 0 {
		t.Fatal("a second claim of the same delivery")
	}
}

func TestHeartbeatMovesTheLeaseAndTellsAStoppedAttempt(t *testing.T) {
	j := claimed(t)
	ch, mine := j.Heartbeat(1, 40, t0.Add(2*time.Minute), t0.Add(time.Second))
	j = apply(t, j, ch)
	if !mine || j.Progress != 40 || !j.LeaseUntil.Equal(t0.Add(2*time.Minute)) || types(ch)[0] != "test.job.progressed" {
		t.Fatalf("%+v %v", j, types(ch))
	}
	if ch, mine := j.Heartbeat(1, 40, t0.Add(time.Minute), t0); ch != nil || !mine {
		t.Fatal("nothing new must append nothing")
	}
	if _, mine := j.Heartbeat(2, 50, t0.Add(time.Hour), t0); mine {
		t.Fatal("another attempt's heartbeat")
	}
	ch, _ = j.Cancel("user", t0)
	j = apply(t, j, ch)
	if _, mine := j.Heartbeat(1, 50, t0.Add(time.Hour), t0); mine {
		t.Fatal("a cancelled job's attempt must stop")
	}
}

func TestOutcomes(t *testing.T) {
	t.Run("succeeded", func(t *testing.T) {
		j := claimed(t)
		ch, err := j.Record(1, Outcome{Succeeded: true, Result: json.RawMessage(`{"ok":1}`)}, policy, t0)
		j = apply(t, j, ch)
		if err != nil || j.State != Succeeded || j.Progress != 100 || string(j.Result) != `{"ok":1}` || j.FinishedAt == nil {
			t.Fatalf("%+v %v", j, err)
		}
		if !ch[0].Timers[0].Cancel {
			t.Fatal("the reconcile timer stays")
		}
		if ch, _ := j.Record(1, Outcome{Failure: &FailureOutcome{Code: "x"}}, policy, t0); ch != nil {
			t.Fatal("a succeeded job changed")
		}
		if _, err := j.Cancel("late", t0); errs.CodeOf(err) != "invalid_transition" {
			t.Fatalf("cancel of a succeeded job: %v", err)
		}
	})
	t.Run("retryable failure waits the later of backoff and the other side's wait", func(t *testing.T) {
		j := claimed(t)
		ch, _ := j.Record(1, Outcome{Failure: &FailureOutcome{Code: "rate_limited", Reason: "slow down", Retry: true, Wait: 25 * time.Second}}, policy, t0)
		j = apply(t, j, ch)
		if j.State != Failed || j.Failure.RetryAt == nil || !j.Failure.RetryAt.Equal(t0.Add(25*time.Second)) || j.Settled() {
			t.Fatalf("%+v", j.Failure)
		}
		if tm := ch[0].Timers; len(tm) != 2 || tm[1].Name != TimerRetry || tm[1].Kind != "test.job.retry" {
			t.Fatalf("timers %+v", tm)
		}
		if stale := j.RetryDue(2, t0); stale != nil {
			t.Fatal("a retry timer of another attempt")
		}
		j = apply(t, j, j.RetryDue(1, t0.Add(25*time.Second)))
		if j.State != Queued {
			t.Fatal(j.State)
		}
		ch, a := j.Claim(j.Version(), time.Minute, t0)
		j = apply(t, j, ch)
		if a != 2 || j.Tries != 2 {
			t.Fatalf("attempt %d tries %d", a, j.Tries)
		}
		ch, _ = j.Record(2, Outcome{Failure: &FailureOutcome{Code: "fault", Retry: true}}, policy, t0)
		j = apply(t, j, ch)
		if !j.Failure.RetryAt.Equal(t0.Add(20 * time.Second)) {
			t.Fatalf("second backoff %v, want doubled", j.Failure.RetryAt)
		}
		j = apply(t, j, j.RetryDue(2, t0))
		ch, _ = j.Claim(j.Version(), time.Minute, t0)
		j = apply(t, j, ch)
		ch, _ = j.Record(3, Outcome{Failure: &FailureOutcome{Code: "fault", Retry: true}}, policy, t0)
		j = apply(t, j, ch)
		if j.Failure.RetryAt != nil || !j.Settled() {
			t.Fatal("a third failure of three attempts is final")
		}
		ch, err := j.Retry(t0)
		j = apply(t, j, ch)
		if err != nil || j.State != Queued || j.Tries != 0 || j.Failure != nil {
			t.Fatalf("a person's retry: %+v %v", j, err)
		}
	})
	t.Run("a final failure is not retried", func(t *testing.T) {
		j := claimed(t)
		ch, _ := j.Record(0, Outcome{Failure: &FailureOutcome{Code: "rejected"}}, policy, t0)
		j = apply(t, j, ch)
		if j.State != Failed || j.Failure.RetryAt != nil || len(ch[0].Timers) != 1 || j.Failure.Attempt != 1 {
			t.Fatalf("%+v", j)
		}
	})
	t.Run("unconfirmed then probed", func(t *testing.T) {
		j := claimed(t)
		ch, _ := j.Record(1, Outcome{Unconfirmed: true, Detail: json.RawMessage(`{"pending":"p1"}`), ProbeAt: t0.Add(5 * time.Second), Reason: "timeout"}, policy, t0)
		j = apply(t, j, ch)
		if j.State != Unconfirmed || string(j.Detail) != `{"pending":"p1"}` || !ch[0].Timers[0].At.Equal(t0.Add(5*time.Second)) {
			t.Fatalf("%+v", j)
		}
		if !j.Reconcilable(1) || j.Reconcilable(2) {
			t.Fatal("reconcilable")
		}
		ch, _ = j.Record(1, Outcome{Succeeded: true}, policy, t0)
		if j = apply(t, j, ch); j.State != Succeeded {
			t.Fatal(j.State)
		}
	})
	t.Run("not done is queued again until the attempts are spent", func(t *testing.T) {
		j := claimed(t)
		for a := 1; a <= 3; a++ {
			ch, _ := j.Record(a, Outcome{NotDone: true, Reason: "not_found"}, policy, t0)
			j = apply(t, j, ch)
			if a < 3 {
				if j.State != Queued {
					t.Fatalf("attempt %d: %s", a, j.State)
				}
				ch, _ = j.Claim(j.Version(), time.Minute, t0)
				j = apply(t, j, ch)
			}
		}
		if j.State != Failed || j.Failure.Code != CodeLost {
			t.Fatalf("%+v", j)
		}
	})
	t.Run("an older attempt's outcome changes nothing", func(t *testing.T) {
		j := claimed(t)
		ch, _ := j.Record(1, Outcome{NotDone: true}, policy, t0)
		j = apply(t, j, ch)
		ch, _ = j.Claim(j.Version(), time.Minute, t0)
		j = apply(t, j, ch)
		if ch, _ := j.Record(1, Outcome{Succeeded: true}, policy, t0); ch != nil {
			t.Fatal("attempt 1's late success settled attempt 2")
		}
	})
}

// TestCancelledNeverCompletes: a cancelled job stays cancelled whatever
// its attempt in flight reports after.
func TestCancelledNeverCompletes(t *testing.T) {
	j := claimed(t)
	ch, err := j.Cancel("not needed", t0)
	j = apply(t, j, ch)
	if err != nil || j.State != Cancelled || len(ch[0].Timers) != 2 {
		t.Fatalf("%+v %v", j, err)
	}
	for _, o := range []Outcome{{Succeeded: true}, {Failure: &FailureOutcome{Code: "x", Retry: true}}, {Unconfirmed: true}, {NotDone: true}} {
		if ch, _ := j.Record(1, o, policy, t0); ch != nil {
			t.Fatalf("%+v changed a cancelled job", o)
		}
	}
	if _, err := j.Cancel("again", t0); errs.CodeOf(err) != "invalid_transition" {
		t.Fatalf("cancel twice: %v", err)
	}
	if _, err := j.Retry(t0); errs.CodeOf(err) != "invalid_transition" {
		t.Fatalf("retry of a cancelled job: %v", err)
	}
	if ch, a := j.Claim(j.Version(), time.Minute, t0); ch != nil || a != 0 {
		t.Fatal("claimed a cancelled job")
	}
	if _, err := (&Job{}).Cancel("", t0); errs.KindOf(err) != errs.KindNotFound {
		t.Fatalf("cancel of nothing: %v", err)
	}
}

func TestRetryOfAJobOnItsWayChangesNothing(t *testing.T) {
	j := claimed(t)
	if ch, err := j.Retry(t0); ch != nil || err != nil {
		t.Fatalf("%v %v", ch, err)
	}
}

func TestPolicy(t *testing.T) {
	p := RetryPolicy{}.WithDefaults()
	if p.MaxAttempts != 3 || p.Backoff != 30*time.Second || p.MaxBackoff != 15*time.Minute || p.Validate() != nil {
		t.Fatalf("%+v", p)
	}
	if (RetryPolicy{MaxAttempts: 0}).Validate() == nil || (RetryPolicy{MaxAttempts: 1, Backoff: time.Minute, MaxBackoff: time.Second}).Validate() == nil {
		t.Fatal("bad policies accepted")
	}
	p = RetryPolicy{MaxAttempts: 10, Backoff: time.Second, MaxBackoff: 5 * time.Second}
	for tries, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 5 * time.Second, 9: 5 * time.Second} {
		if at := p.At(tries, 0, t0); at == nil || at.Sub(t0) != want {
			t.Errorf("after %d tries: %v, want %s", tries, at, want)
		}
	}
	if p.At(10, 0, t0) != nil || p.At(0, 0, t0) != nil {
		t.Fatal("no retry after the last attempt")
	}
	if at := p.At(1, time.Hour, t0); at.Sub(t0) != time.Hour {
		t.Fatal("the other side's wait is honoured past the ceiling")
	}
}
