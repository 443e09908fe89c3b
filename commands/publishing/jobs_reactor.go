package publishing

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/domain/event"
	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/eventstore"
)

// The reactors between posts and their items' jobs.
const (
	ItemJobsReactor    = "publishing.item_jobs"
	JobOutcomesReactor = "publishing.job_outcomes"
)

// ItemJobs requests the job of each item a post claims (a thread's next
// item; the publish timer's claims, should PublishDue have stopped before
// requesting them): a new job, or the item's failed job retried. A claim
// the post has moved on from (published, rescheduled, deleted since)
// requests nothing. Keys derive from the event, and a job id is requested
// once, so redelivery and two processes request nothing twice.
type ItemJobs struct{ p *Publisher }

var _ reactor.Reactor = ItemJobs{}

func (p *Publisher) ItemJobs() ItemJobs { return ItemJobs{p: p} }

func (ItemJobs) Name() string       { return ItemJobsReactor }
func (ItemJobs) Contexts() []string { return []string{"publishing"} }
func (ItemJobs) Types() []string    { return []string{domain.TargetClaimed} }

func (r ItemJobs) React(ctx context.Context, e eventstore.Event) error {
	var pe domain.PostEvent
	if err := json.Unmarshal(e.Payload, &pe); err != nil {
		return fmt.Errorf("decode %s: %w", e.Type, err)
	}
	if pe.Item == nil || pe.Reason == domain.ReasonJobAttempt {
		return nil
	}
	post, err := r.p.h.PostAny(ctx, pe.PostID)
	if err != nil {
		return err
	}
	t, ok := post.Target(pe.TargetID)
	if !post.Awaits(pe.TargetID, *pe.Item) || !ok || t.InFlight == nil {
		return nil
	}
	return r.p.ensureItemJob(ctx, reactor.Meta(ItemJobsReactor, e, "item"), pe.PostID, pe.TargetID, *pe.Item, t.InFlight.ClaimedAt)
}

// Outcomes records on the post what its items' jobs report: an attempt
// started (after the first), published, failed, unconfirmed.
type Outcomes struct{ p *Publisher }

var _ reactor.Reactor = Outcomes{}

func (p *Publisher) Outcomes() Outcomes { return Outcomes{p: p} }

var jobTypes = domjobs.TypesOf("publishing")

func (Outcomes) Name() string       { return JobOutcomesReactor }
func (Outcomes) Contexts() []string { return []string{"publishing"} }
func (Outcomes) Types() []string {
	return []string{jobTypes.Claimed, jobTypes.Succeeded, jobTypes.Failed, jobTypes.Unconfirmed}
}

func (r Outcomes) React(ctx context.Context, e eventstore.Event) error {
	je, err := eventstore.Decode[domjobs.Event](e)
	if err != nil {
		return err
	}
	j := je.Job
	if j.Kind != KindPublish || (e.Type == jobTypes.Claimed && je.Attempt <= 1) {
		return nil // the post's claim says publishing already
	}
	in, err := jobs.Input[ItemJob](j)
	if err != nil {
		return err
	}
	var act func(*domain.Post) ([]event.Change, error)
	now := r.p.h.now()
	switch e.Type {
	case jobTypes.Claimed:
		act = func(post *domain.Post) ([]event.Change, error) {
			return post.AttemptStarted(in.TargetID, in.Item, je.Attempt, domjobs.AttemptKey(j.Kind, j.ID, je.Attempt), *j.ClaimedAt, now), nil
		}
	case jobTypes.Succeeded:
		out, err := jobs.Result[ItemPublished](j)
		if err != nil {
			return err
		}
		act = func(post *domain.Post) ([]event.Change, error) {
			return post.RecordPublished(in.TargetID, in.Item, je.Attempt, domain.Outcome{PlatformPostID: out.PlatformPostID, URL: out.URL,
				ConnectionID: out.ConnectionID, At: out.At}, now)
		}
	case jobTypes.Failed:
		f := domain.Failure{Code: j.Failure.Code, Reason: j.Failure.Reason, RetryAt: j.Failure.RetryAt}
		if f.Code == domjobs.CodeLost {
			f.Code, f.Reason = domain.FailureNotFound, "the network did not get the post"
		}
		act = func(post *domain.Post) ([]event.Change, error) {
			return post.RecordFailed(in.TargetID, in.Item, je.Attempt, f, now)
		}
	case jobTypes.Unconfirmed:
		var d attemptDetail
		_ = json.Unmarshal(j.Detail, &d)
		var connection *string
		if d.ConnectionID != "" {
			connection = &d.ConnectionID
		}
		act = func(post *domain.Post) ([]event.Change, error) {
			return post.RecordUnconfirmed(in.TargetID, in.Item, je.Attempt, d.Pending, connection, je.Reason, now)
		}
	default:
		return nil
	}
	_, err = r.p.h.runPost(ctx, reactor.Meta(JobOutcomesReactor, e, "post"), in.PostID, act)
	return err
}
