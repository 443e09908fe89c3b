package publishing

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/event"
)

var policy = RetryPolicy{MaxAttempts: 3, Backoff: 30 * time.Second, MaxBackoff: 45 * time.Second}

func TestRetryPolicy(t *testing.T) {
	for name, c := range map[string]struct {
		code    string
		attempt int
		wait    time.Duration
		want    time.Duration // -1: no retry
	}{
		"fault, first":               {FailureProviderFault, 1, 0, 30 * time.Second},
		"fault, second doubles":      {FailureProviderFault, 2, 0, 45 * time.Second}, // capped
		"fault, bound reached":       {FailureProviderFault, 3, 0, -1},
		"rate limit, network later":  {FailureRateLimited, 1, 10 * time.Minute, 10 * time.Minute},
		"rate limit, network sooner": {FailureRateLimited, 1, time.Second, 30 * time.Second},
		"rejected":                   {FailureRejected, 1, 0, -1},
		"revoked grant":              {FailureReconnect, 1, 0, -1},
		"no connection":              {"no_connection", 1, 0, -1},
		"reconciled not found":       {"not_found", 1, 0, -1},
	} {
		at := policy.At(c.code, c.attempt, c.wait, now)
		switch {
		case c.want < 0 && at != nil:
			t.Errorf("%s: retried at %v", name, at)
		case c.want >= 0 && (at == nil || !at.Equal(now.Add(c.want))):
			t.Errorf("%s: at %v, want now+%v", name, at, c.want)
		}
	}
}

// timerOf finds a change's timer of a name.
func timerOf(c []event.Change, name string) (event.Timer, bool) {
	for _, ch := range c {
		for _, tm := range ch.Timers {
			if tm.Name == name {
				return tm, true
			}
		}
	}
	return event.Timer{}, false
}

// TestAutomaticRetry: a failure with a retry time schedules the target's
// retry timer; the timer claims a new attempt (a new key) of the same item
// only while the target is still failed at that attempt; a person's retry
// cancels it and restarts the bound.
func TestAutomaticRetry(t *testing.T) {
	p := scheduled(t)
	var h [][]event.Change
	c, claims := p.Due(now)
	h = append(h, c)
	first := claims[0].Claim
	at := now.Add(time.Minute)
	c = must(t)(p.RecordFailed("t1", 0, first.Attempt, Failure{Code: FailureRateLimited, Retryable: true, RetryAt: &at}, now))
	tm, ok := timerOf(c, "retry:t1")
	if !ok || tm.Kind != TimerKindRetry || !tm.At.Equal(at) || tm.Payload != (RetryTimer{TargetID: "t1", Attempt: first.Attempt}) {
		t.Fatalf("timer %+v %v", tm, ok)
	}
	h = append(h, c)
	p = given(t, h...)
	if tg, _ := p.Target("t1"); tg.State != StateFailed || tg.Failure.RetryAt == nil || first.ItemAttempt != 1 {
		t.Fatalf("target %+v, claim %+v", tg, first)
	}
	if _, stale := p.RetryDue("t1", first.Attempt-1, now); len(stale) != 0 {
		t.Fatal("a stale timer claimed")
	}
	c, claims = p.RetryDue("t1", first.Attempt, at)
	if len(claims) != 1 || claims[0].Claim.Attempt != first.Attempt+1 || claims[0].Claim.ItemAttempt != 2 ||
		claims[0].Claim.IdempotencyKey == first.IdempotencyKey || claims[0].Claim.Item != 0 {
		t.Fatalf("claims %+v", claims)
	}
	h = append(h, c)
	if _, again := given(t, h...).RetryDue("t1", first.Attempt, at); len(again) != 0 {
		t.Fatal("the timer claimed twice")
	}
	// A failure without a retry time (a rejection) schedules nothing.
	p = given(t, h...)
	c = must(t)(p.RecordFailed("t1", 0, first.Attempt+1, Failure{Code: FailureRejected, RetryAt: &at}, now))
	if _, ok := timerOf(c, "retry:t1"); ok {
		t.Fatal("a rejection scheduled a retry")
	}
	// A person's retry of a target awaiting its automatic retry cancels it.
	p = given(t, append(h[:len(h):len(h)], must(t)(given(t, h...).RecordFailed("t1", 0, first.Attempt+1,
		Failure{Code: FailureProviderFault, Retryable: true, RetryAt: &at}, now)))...)
	c = must(t)(p.Retry(now))
	if tm, ok := timerOf(c, "retry:t1"); !ok || !tm.Cancel {
		t.Fatalf("manual retry left the automatic one: %+v", c)
	}
	if tg, _ := p.Target("t1"); tg.ItemAttempts != 0 || tg.State != StateScheduled {
		t.Fatalf("target %+v", tg)
	}
}

// TestAutomaticRetryResumesAThread: the retry of a failed thread item
// claims that item, as a reply to the one before, never an earlier one.
func TestAutomaticRetryResumesAThread(t *testing.T) {
	p := scheduled(t, Item{Text: "1"}, Item{Text: "2"})
	_, claims := p.Due(now)
	must(t)(p.RecordPublished("t1", 0, claims[0].Claim.Attempt, Outcome{PlatformPostID: "n1"}, now))
	_, next := p.ClaimNext("t1", 1, now)
	at := now.Add(time.Minute)
	must(t)(p.RecordFailed("t1", 1, next[0].Claim.Attempt, Failure{Code: FailureProviderFault, Retryable: true, RetryAt: &at}, now))
	_, retry := p.RetryDue("t1", next[0].Claim.Attempt, at)
	if len(retry) != 1 || retry[0].Claim.Item != 1 || retry[0].Claim.ReplyTo == nil || *retry[0].Claim.ReplyTo != "n1" || retry[0].Claim.ItemAttempt != 2 {
		t.Fatalf("retry %+v", retry)
	}
}
