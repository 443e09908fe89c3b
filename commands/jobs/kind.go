// Package jobs is the durable-job kernel (DESIGN.md §3 "Durable job"): "do
// this outside call once, and know whether it happened". A context declares
// a kind of job (Define: what one attempt does, Do, and how to tell whether
// an attempt whose outcome is unknown happened, Probe) in its module's
// Parts.Jobs; its commands request jobs of that kind; the kernel runs them.
//
// What the kernel guarantees:
//   - A job is a stream of its own (domain/jobs): requested, claimed by one
//     worker under a lease, each attempt's outcome, cancelled. Workers are a
//     Kafka consumer group on the context's topic ("<context>-jobs"), so
//     processes share the work; a claim holds only at the stream version the
//     worker saw queued, so two workers never run one attempt.
//   - Every attempt has its own idempotency key (Attempt.Key, derived from
//     the job and the attempt), passed to the outside call: a retry is a new
//     key, a repeat of one attempt is the same key.
//   - An attempt whose outcome is unknown (its worker died: the lease ran
//     out; or Do said Unconfirmed, or failed in a way it did not classify) is
//     settled by Probe before anything is attempted again: found is
//     succeeded, not found is a new attempt while the policy allows.
//   - Failed attempts marked retryable are retried on a durable timer by the
//     kind's RetryPolicy; a person may retry a failed job (Retry).
//   - Succeeded and cancelled are terminal: a cancelled job never succeeds,
//     even when its attempt in flight returns success later; its worker's
//     Do is cancelled.
//   - Queued jobs of a kind are run by priority (higher first, then oldest)
//     among those a worker holds; Do reports progress (0..100).
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/jobs"
)

// Spec declares a kind of job. In is the job's input (JSON, carried by
// every event of the job: keep it small, references rather than content);
// Out is a succeeded attempt's result.
type Spec[In, Out any] struct {
	// Name is "<context>.<kind>" (lowercase, e.g. "studio.render"); the
	// context is the module declaring it. Stable: it names the job streams.
	Name string
	// Do performs one attempt: the outside call, with a.Key as its
	// idempotency key. It answers the result, or an error that says what
	// became of the attempt: Fail (final), Retryable (the policy retries),
	// Unconfirmed (the call may have happened: probe first) or NotDone (it
	// provably did nothing: attempt again). Any other error counts as
	// Unconfirmed: when unsure, the kernel asks Probe rather than act again.
	// ctx ends at Timeout, when the job is cancelled, or when the worker
	// loses its lease.
	Do func(ctx context.Context, a *Attempt[In]) (Out, error)
	// Probe answers whether an attempt whose outcome is unknown happened:
	// (result, true, nil) it did; (_, false, nil) it did not, and never
	// will (a new attempt goes, with a new key); Fail or Retryable: it
	// failed; any other error (Later): ask again later. It must not act.
	Probe func(ctx context.Context, a *Attempt[In]) (Out, bool, error)
	// Retry bounds automatic retries (default: 3 attempts, 30s doubling to 15m).
	Retry domain.RetryPolicy
	// Lease is how long an attempt is the worker's without a heartbeat; the
	// worker renews it while Do runs, so a dead worker's attempt is probed
	// about one lease after it died (default 1m).
	Lease time.Duration
	// Timeout bounds one Do (default 10m).
	Timeout time.Duration
	// ProbeTimeout bounds one Probe (default 30s, below the timers' fire timeout).
	ProbeTimeout time.Duration
	// Concurrency is how many attempts of the kind a worker process runs at
	// once (default 4).
	Concurrency int
	// Changed, when set, is told in the worker's process of each attempt the
	// kernel claims or settles for a job of the kind (the job after it), once
	// recorded: a context that mirrors its jobs on an aggregate of its own
	// (publishing's post targets) does so without waiting for the log. Best
	// effort: the process may stop first, so the context's reactor on the
	// job events stays the record, and both apply idempotently.
	Changed func(ctx context.Context, j domain.Job)
}

// Kind is a declared kind of job, as a module lists it (Parts.Jobs). Only
// Define makes one.
type Kind interface {
	Name() string
	kind() *kind
}

// kind is a Spec without its types: what workers and timers run.
type kind struct {
	name, context string
	do            func(ctx context.Context, a *attempt) (json.RawMessage, error)
	probe         func(ctx context.Context, a *attempt) (json.RawMessage, bool, error)
	retry         domain.RetryPolicy
	lease         time.Duration
	timeout       time.Duration
	probeTimeout  time.Duration
	concurrency   int
	changed       func(ctx context.Context, j domain.Job)
	cmds          *Commands
}

// tell passes a change to the kind's Changed (bounded; never fails the caller).
func (k *kind) tell(j domain.Job) {
	if k.changed == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	k.changed(ctx, j)
}

// attempt is an Attempt before its input is decoded.
type attempt struct {
	job       domain.Job
	number    int
	claimedAt time.Time
	progress  atomic.Int32
}

var kindPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{1,30}\.[a-z][a-z0-9_]{0,40}$`)

// Define declares a kind of job. cmds are the platform's job commands
// (module.Platform.Jobs).
func Define[In, Out any](cmds *Commands, s Spec[In, Out]) (*Def[In, Out], error) {
	if !kindPattern.MatchString(s.Name) {
		return nil, fmt.Errorf("jobs: kind %q: want <context>.<name>, lowercase letters, digits and underscores", s.Name)
	}
	if cmds == nil || s.Do == nil || s.Probe == nil {
		return nil, fmt.Errorf("jobs: kind %s: commands, Do and Probe are required (a kind whose calls cannot be looked up answers not found from Probe, after making them safe to repeat)", s.Name)
	}
	s.Retry = s.Retry.WithDefaults()
	if err := s.Retry.Validate(); err != nil {
		return nil, fmt.Errorf("jobs: kind %s: retry policy: %w", s.Name, err)
	}
	if s.Lease == 0 {
		s.Lease = time.Minute
	}
	if s.Timeout == 0 {
		s.Timeout = 10 * time.Minute
	}
	if s.ProbeTimeout == 0 {
		s.ProbeTimeout = 30 * time.Second
	}
	if s.Concurrency == 0 {
		s.Concurrency = 4
	}
	if s.Lease < 100*time.Millisecond || s.Timeout <= 0 || s.ProbeTimeout <= 0 || s.Concurrency < 1 {
		return nil, fmt.Errorf("jobs: kind %s: lease (at least 100ms), timeouts and concurrency must be positive", s.Name)
	}
	k := &kind{name: s.Name, context: domain.ContextOf(s.Name), retry: s.Retry, lease: s.Lease, timeout: s.Timeout,
		probeTimeout: s.ProbeTimeout, concurrency: s.Concurrency, changed: s.Changed, cmds: cmds}
	k.do = func(ctx context.Context, a *attempt) (json.RawMessage, error) {
		typed, err := typedAttempt[In](a)
		if err != nil {
			return nil, Fail("invalid_input", "the job's input does not decode")
		}
		out, err := s.Do(ctx, typed)
		if err != nil {
			return nil, err
		}
		return encodeResult(out)
	}
	k.probe = func(ctx context.Context, a *attempt) (json.RawMessage, bool, error) {
		typed, err := typedAttempt[In](a)
		if err != nil {
			return nil, false, Fail("invalid_input", "the job's input does not decode")
		}
		out, found, err := s.Probe(ctx, typed)
		if err != nil || !found {
			return nil, found, err
		}
		b, err := encodeResult(out)
		return b, true, err
	}
	return &Def[In, Out]{k: k}, nil
}

func encodeResult(out any) (json.RawMessage, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, Fail("invalid_result", "the attempt's result does not encode")
	}
	return b, nil
}

func typedAttempt[In any](a *attempt) (*Attempt[In], error) {
	var in In
	if len(a.job.Input) > 0 && string(a.job.Input) != "null" {
		if err := json.Unmarshal(a.job.Input, &in); err != nil {
			return nil, err
		}
	}
	return &Attempt[In]{JobID: a.job.ID, Kind: a.job.Kind, OrganizationID: a.job.OrganizationID, Number: a.number,
		Key: domain.AttemptKey(a.job.Kind, a.job.ID, a.number), Input: in, Detail: a.job.Detail, ClaimedAt: a.claimedAt,
		Priority: a.job.Priority, progress: &a.progress}, nil
}

// Attempt is one attempt at a job, as Do and Probe see it.
type Attempt[In any] struct {
	JobID          string
	Kind           string
	OrganizationID string
	// Number is the attempt's place in the job's life (1, 2, ...).
	Number int
	// Key is the attempt's idempotency key ("job:<kind>:<id>:attempt:<n>"):
	// give it to the outside call, so that a repeat of this attempt never
	// acts twice where the other side honours keys.
	Key   string
	Input In
	// Detail is what Do left with Unconfirmed (for Probe).
	Detail json.RawMessage
	// ClaimedAt is when the attempt was claimed (Probe: the other side's
	// state from then on is the attempt's).
	ClaimedAt time.Time
	Priority  int
	progress  *atomic.Int32
}

// Progress reports how far the attempt is, 0..100: recorded on the job
// (its "progressed" events) at most about once a second.
func (a *Attempt[In]) Progress(percent int) {
	if a.progress != nil {
		a.progress.Store(int32(min(max(percent, 0), 100)))
	}
}

// Def is a declared kind with its types: what the context's commands
// request, cancel and retry jobs through.
type Def[In, Out any] struct{ k *kind }

func (d *Def[In, Out]) Name() string { return d.k.name }
func (d *Def[In, Out]) kind() *kind  { return d.k }

// RequestOptions tune a request.
type RequestOptions struct {
	// Priority orders the kind's queued jobs: higher first (0..100).
	Priority int
}

// Request asks for a job of this kind with the context's own id (a job id
// is requested once: a second request answers the job as it is). The job
// belongs to m's organization.
func (d *Def[In, Out]) Request(ctx context.Context, m commands.Meta, id string, in In, o RequestOptions) (commands.Result[domain.Job], error) {
	b, err := json.Marshal(in)
	if err != nil {
		return commands.Result[domain.Job]{}, fmt.Errorf("jobs: encode input: %w", err)
	}
	r := domain.Request{ID: id, Kind: d.k.name, OrganizationID: m.OrganizationID, Priority: o.Priority, Input: b}
	return d.k.cmds.execute(ctx, m, d.k.name, id, func(j *domain.Job) ([]eventChange, error) { return j.Request(r, d.k.cmds.now()) })
}

// Guard is a context's own check of a command on one of its jobs, run on
// the job as it is, under its stream's lock, before the kernel decides: a
// context whose states make more of a job final than the kernel's (a
// failed render stays failed) refuses there what they do not allow.
type Guard func(j domain.Job) error

// guarded runs the guards before a decision.
func guarded(decide func(j *domain.Job) ([]eventChange, error), guards []Guard) func(j *domain.Job) ([]eventChange, error) {
	return func(j *domain.Job) ([]eventChange, error) {
		if j.Exists() {
			for _, g := range guards {
				if err := g(*j); err != nil {
					return nil, err
				}
			}
		}
		return decide(j)
	}
}

// Cancel ends a job for good (errs.NotFound for a job of another
// organization; invalid_transition once succeeded or cancelled, or where a
// guard refuses).
func (d *Def[In, Out]) Cancel(ctx context.Context, m commands.Meta, id, reason string, guards ...Guard) (commands.Result[domain.Job], error) {
	return d.k.cmds.execute(ctx, m, d.k.name, id, guarded(func(j *domain.Job) ([]eventChange, error) {
		return j.Cancel(reason, d.k.cmds.now())
	}, guards))
}

// Retry queues a failed job again with the policy's attempts restored (a
// person's retry); a job on its way already is left as it is.
func (d *Def[In, Out]) Retry(ctx context.Context, m commands.Meta, id string) (commands.Result[domain.Job], error) {
	return d.k.cmds.execute(ctx, m, d.k.name, id, func(j *domain.Job) ([]eventChange, error) { return j.Retry(d.k.cmds.now()) })
}

// Report records an attempt's outcome from outside a worker (an external
// renderer reporting back): out and err read as Do's answer. attempt 0 is
// the current attempt. Only a running or unconfirmed attempt is settled;
// guards refuse first what the context does not allow.
func (d *Def[In, Out]) Report(ctx context.Context, m commands.Meta, id string, attempt int, out Out, err error, guards ...Guard) (commands.Result[domain.Job], error) {
	var result json.RawMessage
	if err == nil {
		if result, err = encodeResult(out); err != nil {
			return commands.Result[domain.Job]{}, err
		}
	}
	o := outcomeOf(result, err, d.k.cmds.now())
	res, err := d.k.cmds.execute(ctx, m, d.k.name, id, guarded(func(j *domain.Job) ([]eventChange, error) {
		return j.Record(attempt, o, d.k.retry, d.k.cmds.now())
	}, guards))
	if err == nil && !res.Replayed {
		d.k.tell(res.Value)
	}
	return res, err
}

// Load reads a job from the write side (not found: errs.NotFound, also
// for another organization's job).
func (d *Def[In, Out]) Load(ctx context.Context, organizationID, id string) (domain.Job, error) {
	return d.k.cmds.load(ctx, organizationID, d.k.name, id)
}

// Input decodes a job's input.
func Input[In any](j domain.Job) (In, error) {
	var in In
	err := json.Unmarshal(j.Input, &in)
	return in, err
}

// Result decodes a succeeded job's result.
func Result[Out any](j domain.Job) (Out, error) {
	var out Out
	if j.State != domain.Succeeded {
		return out, errors.New("jobs: the job has not succeeded")
	}
	err := json.Unmarshal(j.Result, &out)
	return out, err
}
