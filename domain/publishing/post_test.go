package publishing

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// given folds changes into a post, as the event store would.
func given(t *testing.T, changes ...[]event.Change) *Post {
	t.Helper()
	var history []event.Recorded
	for _, c := range changes {
		var err error
		if history, err = event.Append(history, c); err != nil {
			t.Fatal(err)
		}
	}
	p, err := LoadPost(history)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// must fails the test on a decision's error and answers its changes.
func must(t *testing.T) func([]event.Change, error) []event.Change {
	return func(c []event.Change, err error) []event.Change {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

func scheduled(t *testing.T, items ...Item) *Post {
	t.Helper()
	if len(items) == 0 {
		items = []Item{{Text: "hello"}}
	}
	p := &Post{}
	c := must(t)(p.Create(NewPost{ID: "p1", BrandID: "b1", AuthorID: "u1", Draft: Draft{Items: items,
		Targets: []TargetSpec{{Network: "network_1", AccountID: ptr("acc")}, {Network: "network_2"}}, PublishAt: ptr(now.Add(time.Hour)), Schedule: true}}, now))
	return given(t, c)
}

func TestCreateSchedulesATimer(t *testing.T) {
	p := &Post{}
	c := must(t)(p.Create(NewPost{ID: "p1", BrandID: "b1", Draft: Draft{Items: []Item{{Text: "x"}},
		Targets: []TargetSpec{{Network: "network_1"}}, PublishAt: ptr(now.Add(time.Minute)), Schedule: true}}, now))
	if len(c) != 2 || c[1].Type != PostScheduled || len(c[1].Timers) != 1 || !c[1].Timers[0].At.Equal(now.Add(time.Minute)) {
		t.Fatalf("changes %+v", c)
	}
	if p.Status != StateScheduled || p.Targets[0].TargetID != "t1" {
		t.Fatalf("post %+v", p)
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	for name, d := range map[string]Draft{
		"no targets":        {Items: []Item{{Text: "x"}}},
		"unknown network":   {Items: []Item{{Text: "x"}}, Targets: []TargetSpec{{Network: "network_9"}}},
		"empty item":        {Items: []Item{{}}, Targets: []TargetSpec{{Network: "network_1"}}},
		"same target twice": {Items: []Item{{Text: "x"}}, Targets: []TargetSpec{{Network: "network_1"}, {Network: "network_1"}}},
		"past schedule":     {Items: []Item{{Text: "x"}}, Targets: []TargetSpec{{Network: "network_1"}}, PublishAt: ptr(now.Add(-time.Hour)), Schedule: true},
		"control character": {Items: []Item{{Text: "a\x07"}}, Targets: []TargetSpec{{Network: "network_1"}}},
	} {
		p := &Post{}
		if _, err := p.Create(NewPost{ID: "p", Draft: d}, now); errs.KindOf(err) != errs.KindInvalidInput {
			t.Errorf("%s: %v, want invalid input", name, err)
		}
	}
}

func TestRevertToDraftClearsTheSchedule(t *testing.T) {
	p := scheduled(t)
	c := must(t)(p.Update(Edit{Schedule: ptr(false)}, now))
	last := c[len(c)-1]
	if last.Type != PostUnscheduled || !last.Timers[0].Cancel {
		t.Fatalf("changes %+v", c)
	}
	if p.Status != StateDraft || p.PublishAt != nil || p.Targets[0].State != StateDraft {
		t.Fatalf("post %+v", p)
	}
}

func TestUpdateKeepsExplicitTargetMetadata(t *testing.T) {
	p := scheduled(t)
	must(t)(p.Update(Edit{Targets: []TargetSpec{{Network: "network_1"}, {Network: "network_2", PageID: ptr("page")}}}, now))
	if p.Targets[0].TargetID != "t1" || p.Targets[0].AccountID == nil || *p.Targets[0].AccountID != "acc" || *p.Targets[1].PageID != "page" {
		t.Fatalf("targets %+v", p.Targets)
	}
	// A copy edit keeps the timer as it is.
	c := must(t)(p.Update(Edit{Items: []Item{{Text: "new"}}}, now))
	if len(c) != 1 || c[0].Type != PostEdited || len(c[0].Timers) != 0 || p.Status != StateScheduled {
		t.Fatalf("changes %+v", c)
	}
}

func TestDueClaimsEachScheduledTargetOnce(t *testing.T) {
	p := scheduled(t)
	c, claims := p.Due(now)
	if len(c) != 2 || len(claims) != 2 || claims[0].Claim.JobID != "p1:t1:0" || claims[0].Claim.Attempt != 0 {
		t.Fatalf("claims %+v", claims)
	}
	if _, again := p.Due(now); len(again) != 0 {
		t.Fatal("claimed twice")
	}
	// An outcome of another item changes nothing.
	if c, _ := p.RecordPublished("t1", 1, 1, Outcome{PlatformPostID: "x"}, now); len(c) != 0 {
		t.Fatal("an outcome of another item was recorded")
	}
	must(t)(p.RecordPublished("t1", 0, 1, Outcome{PlatformPostID: "x1"}, now))
	if c, _ := p.RecordPublished("t1", 0, 1, Outcome{PlatformPostID: "x1"}, now); len(c) != 0 {
		t.Fatal("an item was recorded twice")
	}
	must(t)(p.RecordFailed("t2", 0, 1, Failure{Code: "provider_fault"}, now))
	if p.Status != StatusPartiallyPublished || !p.Targets[1].Failure.Retryable || p.Targets[0].Attempt != 1 {
		t.Fatalf("post %+v", p)
	}
	// Retry touches the failed target only.
	c = must(t)(p.Retry(now))
	if len(c) != 1 || p.Targets[0].State != StatePublished || p.Targets[1].State != StateScheduled || p.Targets[1].Failure != nil {
		t.Fatalf("after retry %+v", p.Targets)
	}
	_, claims = p.Due(now)
	if len(claims) != 1 || claims[0].TargetID != "t2" || claims[0].Claim.JobID != "p1:t2:0" {
		t.Fatalf("claims after retry %+v", claims)
	}
	// The item's job retried: its second attempt is the target's second.
	if c := p.AttemptStarted("t2", 0, 2, "k2", now, now); len(c) != 1 || p.Targets[1].Attempt != 2 || p.Targets[1].InFlight.IdempotencyKey != "k2" {
		t.Fatalf("attempt started %+v", p.Targets[1])
	}
}

func TestUnconfirmedIsNotRetried(t *testing.T) {
	p := scheduled(t)
	p.Due(now)
	must(t)(p.RecordUnconfirmed("t1", 0, 1, nil, nil, "timeout", now))
	must(t)(p.RecordFailed("t2", 0, 1, Failure{Code: "rejected"}, now))
	if p.Targets[1].Failure.Retryable {
		t.Fatal("a rejection is not retryable")
	}
	must(t)(p.Retry(now))
	if p.Targets[0].State != StateUnconfirmed {
		t.Fatalf("an unconfirmed target was requeued: %+v", p.Targets[0])
	}
	if _, err := p.Delete(now); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("delete while unconfirmed: %v", err)
	}
	// The reconciliation found nothing: the job's next attempt.
	p.AttemptStarted("t1", 0, 2, "k2", now, now)
	if p.Targets[0].State != StatePublishing || p.Targets[0].Attempt != 2 {
		t.Fatalf("after the next attempt %+v", p.Targets[0])
	}
}

func TestThreadWaitsForEachItem(t *testing.T) {
	p := scheduled(t, Item{Text: "1"}, Item{Text: "2"}, Item{Text: "3"})
	p.Due(now)
	if _, c := p.ClaimNext("t1", 1, now); len(c) != 0 {
		t.Fatal("item 2 claimed before item 1 was published")
	}
	c := must(t)(p.RecordPublished("t1", 0, 1, Outcome{PlatformPostID: "a"}, now))
	tg := p.Targets[0]
	if len(c) != 2 || c[1].Type != TargetClaimed || tg.State != StatePublishing || tg.InFlight.Item != 1 ||
		tg.InFlight.ReplyTo == nil || *tg.InFlight.ReplyTo != "a" || tg.InFlight.JobID != "p1:t1:1" || tg.JobAttempt != 0 {
		t.Fatalf("the thread did not go on: %+v", tg)
	}
	must(t)(p.RecordFailed("t1", 1, 1, Failure{Code: "rate_limited"}, now))
	if _, c := p.ClaimNext("t1", 2, now); len(c) != 0 {
		t.Fatal("the chain went on after a failure")
	}
	must(t)(p.Retry(now))
	_, claims := p.Due(now)
	var t1 *ClaimedTarget
	for i := range claims {
		if claims[i].TargetID == "t1" {
			t1 = &claims[i]
		}
	}
	if t1 == nil || t1.Claim.Item != 1 || *t1.Claim.ReplyTo != "a" || p.Targets[0].Attempt != 2 {
		t.Fatalf("resumed at %+v", t1)
	}
}

func TestRescheduleClearsFailures(t *testing.T) {
	p := scheduled(t)
	p.Due(now)
	must(t)(p.RecordFailed("t1", 0, 1, Failure{Code: "provider_fault"}, now))
	must(t)(p.RecordFailed("t2", 0, 1, Failure{Code: "provider_fault"}, now))
	if _, err := p.Reschedule(now.Add(-time.Minute), now); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("past reschedule: %v", err)
	}
	c := must(t)(p.Reschedule(now.Add(time.Hour), now))
	if p.Status != StateScheduled || p.Targets[0].Failure != nil || len(c[0].Timers) != 1 {
		t.Fatalf("rescheduled %+v", p)
	}
}

func TestSuggestionsNeedApproval(t *testing.T) {
	p := &Post{}
	must(t)(p.Create(NewPost{ID: "s", Origin: OriginSuggestion, Draft: Draft{Items: []Item{{Text: "x"}}, Targets: []TargetSpec{{Network: "network_1"}}}}, now))
	if _, err := p.Update(Edit{PublishAt: ptr(now.Add(time.Hour))}, now); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("scheduling a pending suggestion: %v", err)
	}
	if _, c := p.Due(now); len(c) != 0 {
		t.Fatal("a pending suggestion was claimed")
	}
	must(t)(p.Approve(now))
	if _, err := p.Reject(nil, now); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("reject after approve: %v", err)
	}
}

func TestDerive(t *testing.T) {
	tg := func(states ...string) Post {
		p := Post{}
		for _, s := range states {
			p.Targets = append(p.Targets, Target{State: s})
		}
		return p
	}
	for want, p := range map[string]Post{
		StateDraft:               tg(StateDraft, StateDraft),
		StateScheduled:           tg(StateScheduled, StateScheduled),
		StatePublishing:          tg(StatePublished, StateUnconfirmed),
		StatePublished:           tg(StatePublished, StatePublished),
		StatusPartiallyPublished: tg(StatePublished, StateFailed),
		StateFailed:              tg(StateFailed, StateFailed),
	} {
		if got := Derive(p); got != want {
			t.Errorf("Derive(%v) = %s, want %s", p.Targets, got, want)
		}
	}
}

func TestResolvePrefersTheAuthor(t *testing.T) {
	b := Brand{BrandID: "b", Connections: []Connection{
		{ConnectionID: "c1", Network: "network_1", AccountID: "a1", OwnerID: "other", Status: ConnectionActive},
		{ConnectionID: "c2", Network: "network_1", AccountID: "a2", OwnerID: "author", Status: ConnectionActive},
		{ConnectionID: "c3", Network: "network_1", AccountID: "a3", OwnerID: "author2", Status: ConnectionReconnect},
	}}
	for _, c := range []struct {
		author, account, want string
	}{{"author", "", "c2"}, {"nobody", "", "c1"}, {"author", "a1", "c1"}, {"author2", "", "c1"}} {
		var acc *string
		if c.account != "" {
			acc = &c.account
		}
		got, ok := b.Resolve("network_1", acc, nil, c.author)
		if !ok || got.ConnectionID != c.want {
			t.Errorf("Resolve(author %s, account %q) = %s, want %s", c.author, c.account, got.ConnectionID, c.want)
		}
	}
	if _, ok := b.Resolve("network_2", nil, nil, "author"); ok {
		t.Error("resolved a network without a connection")
	}
}
