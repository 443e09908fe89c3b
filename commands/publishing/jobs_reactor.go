package publishing

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/platform/backend/commands"
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
// started (after the first), published, failed, unconfirmed. The worker
// that records an outcome tells the post at once (Spec.Changed, mirror);
// this reactor is the record for what that missed (a process that stopped
// between the two), and finds the rest recorded already.
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
	return r.p.mirror(ctx, reactor.Meta(JobOutcomesReactor, e, "post"), je.Job)
}

// changed is the publish job's Changed: the job's new state, recorded on
// the post at once, under a key of the job's attempt and state.
func (p *Publisher) changed(ctx context.Context, j domjobs.Job) {
	key := domjobs.AttemptKey(j.Kind, j.ID, j.Attempt) + ":" + j.State + ":post"
	if err := p.mirror(ctx, systemMeta(j.OrganizationID, key), j); err != nil {
		p.log.Info("publishing: job outcome not on the post yet; the job_outcomes reactor records it", "job", j.ID, "err", err)
	}
}

// mirror records a publish job's state on its post: the job's attempt after
// the first started, its item published, failed or unconfirmed. The post's
// decisions apply each once, whoever tells them.
func (p *Publisher) mirror(ctx context.Context, m commands.Meta, j domjobs.Job) error {
	if j.Kind != KindPublish || j.State == domjobs.Running && j.Attempt <= 1 {
		return nil // the post's claim says publishing already
	}
	in, err := jobs.Input[ItemJob](j)
	if err != nil {
		return err
	}
	var act func(*domain.Post) ([]event.Change, error)
	now := p.h.now()
	switch j.State {
	case domjobs.Running:
		act = func(post *domain.Post) ([]event.Change, error) {
			return post.AttemptStarted(in.TargetID, in.Item, j.Attempt, domjobs.AttemptKey(j.Kind, j.ID, j.Attempt), *j.ClaimedAt, now), nil
		}
	case domjobs.Succeeded:
		out, err := jobs.Result[ItemPublished](j)
		if err != nil {
			return err
		}
		act = func(post *domain.Post) ([]event.Change, error) {
			return post.RecordPublished(in.TargetID, in.Item, j.Attempt, domain.Outcome{PlatformPostID: out.PlatformPostID, URL: out.URL,
				ConnectionID: out.ConnectionID, At: out.At}, now)
		}
	case domjobs.Failed:
		f := domain.Failure{Code: j.Failure.Code, Reason: j.Failure.Reason, RetryAt: j.Failure.RetryAt, At: j.Failure.At}
		if f.Code == domjobs.CodeLost {
			f.Code, f.Reason = domain.FailureNotFound, "the network did not get the post"
		}
		act = func(post *domain.Post) ([]event.Change, error) {
			return post.RecordFailed(in.TargetID, in.Item, j.Attempt, f, now)
		}
	case domjobs.Unconfirmed:
		var d attemptDetail
		_ = json.Unmarshal(j.Detail, &d)
		var connection *string
		if d.ConnectionID != "" {
			connection = &d.ConnectionID
		}
		act = func(post *domain.Post) ([]event.Change, error) {
			return post.RecordUnconfirmed(in.TargetID, in.Item, j.Attempt, d.Pending, connection, "unconfirmed", now)
		}
	default:
		return nil
	}
	_, err = p.h.runPost(ctx, m, in.PostID, act)
	return err
}
