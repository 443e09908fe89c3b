package publishing

import (
	"testing"
	"time"
)

func TestWhatIsRetried(t *testing.T) {
	for code, want := range map[string][2]bool{ // automatic, by a person
		FailureRateLimited: {true, true}, FailureProviderFault: {true, true}, FailureReconnect: {false, true},
		FailureRejected: {false, false}, FailureNoConnection: {false, false}, FailureNotFound: {false, true},
	} {
		if Automatic(code) != want[0] || Retryable(code) != want[1] {
			t.Errorf("%s: automatic %v, retryable %v; want %v", code, Automatic(code), Retryable(code), want)
		}
	}
}

// TestAutomaticRetryIsTheJobs: a failure the item's job retries leaves the
// target failed and waiting for it (its retry time shown); the job's next
// attempt makes it publishing again, counted once. A person's reschedule
// makes the target stop waiting: the job's retry then sends nothing
// (superseded), which the post ignores.
func TestAutomaticRetryIsTheJobs(t *testing.T) {
	p := scheduled(t)
	p.Due(now)
	at := now.Add(time.Minute)
	c := must(t)(p.RecordFailed("t1", 0, 1, Failure{Code: FailureRateLimited, RetryAt: &at}, now))
	if len(c) != 1 || len(c[0].Timers) != 0 {
		t.Fatalf("the post schedules no retry of its own: %+v", c)
	}
	if tg, _ := p.Target("t1"); tg.State != StateFailed || !p.Awaits("t1", 0) || tg.Failure.Attempt != 1 {
		t.Fatalf("target %+v", tg)
	}
	if again, _ := p.RecordFailed("t1", 0, 1, Failure{Code: FailureRateLimited, RetryAt: &at}, now); len(again) != 0 {
		t.Fatal("a failure recorded twice")
	}
	p.AttemptStarted("t1", 0, 2, "k2", at, at)
	if tg, _ := p.Target("t1"); tg.State != StatePublishing || tg.Attempt != 2 || tg.InFlight.Attempt != 2 {
		t.Fatalf("target %+v", tg)
	}
	must(t)(p.RecordFailed("t1", 0, 2, Failure{Code: FailureProviderFault, RetryAt: &at}, now))
	must(t)(p.Reschedule(now.Add(time.Hour), now))
	if p.Awaits("t1", 0) {
		t.Fatal("a rescheduled target still waits for the job's retry")
	}
	if c, _ := p.RecordFailed("t1", 0, 3, Failure{Code: FailureSuperseded}, now); len(c) != 0 {
		t.Fatal("a superseded attempt changed the post")
	}
	if tg, _ := p.Target("t1"); tg.State != StateScheduled || tg.Attempt != 2 {
		t.Fatalf("target %+v", tg)
	}
}

// TestLegacyRetryTimerClaims: a retry timer scheduled before item jobs
// claims the failed target's item (its job is then retried).
func TestLegacyRetryTimerClaims(t *testing.T) {
	p := scheduled(t, Item{Text: "1"}, Item{Text: "2"})
	p.Due(now)
	must(t)(p.RecordPublished("t1", 0, 1, Outcome{PlatformPostID: "n1"}, now))
	at := now.Add(time.Minute)
	must(t)(p.RecordFailed("t1", 1, 1, Failure{Code: FailureProviderFault, RetryAt: &at}, now))
	if _, stale := p.RetryDue("t1", 1, at); len(stale) != 0 {
		t.Fatal("a stale timer claimed")
	}
	_, retry := p.RetryDue("t1", 2, at)
	if len(retry) != 1 || retry[0].Claim.Item != 1 || *retry[0].Claim.ReplyTo != "n1" || retry[0].Claim.JobID != "p1:t1:1" {
		t.Fatalf("retry %+v", retry)
	}
}
