// Package jobs is the durable job's domain (DESIGN.md §3): "do this outside
// call once, and know whether it happened". A job is a stream of its own,
// in its context's topic: requested, claimed by one worker under a lease,
// each attempt's outcome (succeeded, failed, unconfirmed), retried on a
// durable timer by a policy, settled by a probe when an outcome is unknown,
// cancelled. Pure Go: no I/O, no clock (time is passed in).
//
// Every event carries the job as it is after it (as publishing's post
// events carry the post): the write model folds to the last one, and a
// context's read model of its jobs is one reducer.
package jobs

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/platform/backend/domain/event"
)

// Job states. Succeeded and cancelled are terminal: nothing moves a job out
// of them. Failed is final unless a person retries (Retry); while a failure
// has a RetryAt, the policy's retry is on its way.
const (
	Queued      = "queued"      // requested or requeued: a worker will claim it
	Running     = "running"     // claimed: an attempt is in flight under a lease
	Unconfirmed = "unconfirmed" // an attempt's outcome is unknown: probed before anything else
	Succeeded   = "succeeded"
	Failed      = "failed"
	Cancelled   = "cancelled"
)

// Event names: the last part of a job event's type,
// "<context>.job.<name>" (Types).
const (
	nameRequested   = "requested"
	nameClaimed     = "claimed"
	nameProgressed  = "progressed"
	nameSucceeded   = "succeeded"
	nameFailed      = "failed"
	nameUnconfirmed = "unconfirmed"
	nameRequeued    = "requeued"
	nameCancelled   = "cancelled"
)

var names = []string{nameRequested, nameClaimed, nameProgressed, nameSucceeded, nameFailed, nameUnconfirmed, nameRequeued, nameCancelled}

// Types are the job event types of one context. A context's jobs live in
// its own topic, under stream type "<context>.job", so its read models and
// audit history see them beside its other events.
type Types struct {
	Requested, Claimed, Progressed, Succeeded, Failed, Unconfirmed, Requeued, Cancelled string
}

// TypesOf are the job event types of a context.
func TypesOf(context string) Types {
	p := StreamType(context) + "."
	return Types{Requested: p + nameRequested, Claimed: p + nameClaimed, Progressed: p + nameProgressed,
		Succeeded: p + nameSucceeded, Failed: p + nameFailed, Unconfirmed: p + nameUnconfirmed, Requeued: p + nameRequeued,
		Cancelled: p + nameCancelled}
}

// EventTypes are every job event type of a context: a module with jobs
// lists them among its EventTypes, and every projection reading it handles
// or ignores each.
func EventTypes(context string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = StreamType(context) + "." + n
	}
	return out
}

// StreamType is the stream type of a context's jobs.
func StreamType(context string) string { return context + ".job" }

// StreamID is the stream of one job: its kind and the id the context gave
// it, so two kinds never share a stream.
func StreamID(kind, id string) string { return "job:" + kind + ":" + id }

// ContextOf is the context of a kind ("studio" of "studio.render").
func ContextOf(kind string) string {
	ctx, _, _ := strings.Cut(kind, ".")
	return ctx
}

// Timers of a job's stream: "reconcile" at the end of a running attempt's
// lease (or when an unconfirmed one is to be probed), "retry" at a failed
// attempt's RetryAt. Their kinds are per context ("<context>.job.retry").
const (
	TimerReconcile = "reconcile"
	TimerRetry     = "retry"
)

// TimerKinds are a context's timer kinds: a process that runs the
// context's workers fires them.
func TimerKinds(context string) (reconcile, retry string) {
	return StreamType(context) + ".reconcile", StreamType(context) + ".retry"
}

// TimerPayload names the attempt a timer was scheduled for: it is stale
// once another attempt started.
type TimerPayload struct {
	Attempt int `json:"attempt"`
}

// Job is one job's state: the write model, every event's payload and the
// document read models keep.
type Job struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// OrganizationID is the tenant (the stream's organization).
	OrganizationID string `json:"organization_id"`
	State          string `json:"state"`
	// Priority orders a kind's queued jobs in a worker: higher first
	// (0..MaxPriority), then the oldest request.
	Priority int             `json:"priority"`
	Input    json.RawMessage `json:"input"`
	// Attempt numbers the attempts over the job's life: the one in flight,
	// or the last. Each has its own idempotency key (AttemptKey).
	Attempt int `json:"attempt"`
	// Tries counts the attempts since the request or a person's retry: the
	// retry policy bounds it.
	Tries int `json:"tries"`
	// Progress is the running attempt's, 0..100 (100 once succeeded).
	Progress int `json:"progress"`
	// LeaseUntil: a running attempt not heard of by then is reconciled.
	LeaseUntil *time.Time `json:"lease_until"`
	// Detail is what an unconfirmed attempt left for its probe (a pending
	// id on the other side, the connection it used).
	Detail json.RawMessage `json:"detail,omitempty"`
	// Result is the succeeded attempt's output.
	Result  json.RawMessage `json:"result,omitempty"`
	Failure *Failure        `json:"failure"`
	// CancelReason says why a cancelled job was cancelled.
	CancelReason string     `json:"cancel_reason,omitempty"`
	RequestedAt  time.Time  `json:"requested_at"`
	StartedAt    *time.Time `json:"started_at"`  // the first claim
	ClaimedAt    *time.Time `json:"claimed_at"`  // the current (or last) attempt's claim
	FinishedAt   *time.Time `json:"finished_at"` // succeeded, failed for good or cancelled
	UpdatedAt    time.Time  `json:"updated_at"`

	version int64 // the stream's version this state folds (not serialized)
}

// Failure is why an attempt failed.
type Failure struct {
	Attempt int    `json:"attempt"`
	Code    string `json:"code"`   // a stable word of the context's, or the kernel's (Lost, ...)
	Reason  string `json:"reason"` // a few words, never a provider's raw text
	// RetryAt is when the policy's retry goes; nil: none (the failure is
	// final unless a person retries).
	RetryAt *time.Time `json:"retry_at"`
	At      time.Time  `json:"at"`
	// Detail is what the attempt left beside its code for the context's
	// read models and notifications (the provider it tried last); JSON.
	Detail json.RawMessage `json:"detail,omitempty"`
}

// Kernel failure codes.
const (
	// CodeLost: the attempts that left nothing behind (its worker died, or
	// it was not done) used up the policy's attempts.
	CodeLost = "lost"
)

// Event is every job event's payload: what happened (the attempt, a
// reason) and the job after it.
type Event struct {
	JobID   string    `json:"job_id"`
	Attempt int       `json:"attempt,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	At      time.Time `json:"occurred_at"`
	Job     Job       `json:"job"`
}

// Load folds a job's history: the state is the last event's job.
func Load(history []event.Recorded) (*Job, error) {
	j := &Job{}
	for _, r := range history {
		var e Event
		if err := json.Unmarshal(r.Payload, &e); err != nil {
			return nil, fmt.Errorf("decode %s: %w", r.Type, err)
		}
		*j = e.Job
		j.version = r.Version
	}
	return j, nil
}

// Exists: the job was requested.
func (j *Job) Exists() bool { return j.ID != "" }

// Version is the stream version the state folds.
func (j *Job) Version() int64 { return j.version }

// Terminal: succeeded or cancelled, for good.
func (j *Job) Terminal() bool { return j.State == Succeeded || j.State == Cancelled }

// Settled: no attempt is in flight or due (terminal, or failed without a
// pending retry).
func (j *Job) Settled() bool {
	return j.Terminal() || j.State == Failed && (j.Failure == nil || j.Failure.RetryAt == nil)
}

// AttemptKey is the idempotency key of one attempt's outside call:
// "job:<kind>:<id>:attempt:<n>". A retry is a new attempt with a new key;
// the other side, where it honours keys, never acts twice on one.
func AttemptKey(kind, id string, attempt int) string {
	return StreamID(kind, id) + ":attempt:" + fmt.Sprint(attempt)
}
