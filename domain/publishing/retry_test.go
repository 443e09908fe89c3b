package publishing

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEveryFailureCode: each code a target can record says whether the
// item job retries it by itself and whether failure.retryable is true: "the
// same attempt may succeed later with nobody changing anything". A revoked
// grant, an unreadable token, a network this deployment has no adapter for
// and a connection gone under an unconfirmed attempt each need a person, so
// they are not retryable. Every Failure* constant has its row, so a new code
// is decided here.
func TestEveryFailureCode(t *testing.T) {
	type want struct{ automatic, retryable bool }
	table := map[string]want{
		FailureRateLimited:        {true, true},
		FailureProviderFault:      {true, true},
		FailureNotFound:           {false, true},
		FailureMediaUnavailable:   {false, true},
		FailureRejected:           {false, false},
		FailureReconnect:          {false, false},
		FailureNoConnection:       {false, false},
		FailureTokenUnreadable:    {false, false},
		FailureNetworkUnavailable: {false, false},
		FailureUnverifiable:       {false, false},
		FailureSuperseded:         {false, false},
		FailureInvalidInput:       {false, false},
		"a_code_nobody_decided":   {false, false},
	}
	for code, w := range table {
		if Automatic(code) != w.automatic || Retryable(code) != w.retryable {
			t.Errorf("%s: automatic %v, retryable %v; want %+v", code, Automatic(code), Retryable(code), w)
		}
		if w.automatic && !w.retryable {
			t.Errorf("%s: retried automatically yet not retryable", code)
		}
	}
	declared := failureConstants(t)
	if !slices.Equal(FailureCodes(), declared) {
		t.Errorf("the retry table has %v, the Failure* constants are %v", FailureCodes(), declared)
	}
	for _, code := range declared {
		if _, ok := table[code]; !ok {
			t.Errorf("%s: no row in this test", code)
		}
	}
}

// failureConstants are the values of the package's Failure* string
// constants, sorted.
func failureConstants(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "retry.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			if i >= len(spec.Values) {
				break
			}
			if lit, ok := spec.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Failure") && lit.Kind == token.STRING {
				v, _ := strconv.Unquote(lit.Value)
				out = append(out, v)
			}
		}
		return true
	})
	sort.Strings(out)
	return out
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
