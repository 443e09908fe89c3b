package jobs

import (
	"encoding/json"
	"errors"
	"time"

	domain "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/domain/text"
)

// Failure is a failed attempt, as Do (or Probe) answers it: nothing of it
// is on the other side.
type Failure struct {
	Code   string // a stable word the context's read models show
	Reason string // a few words of ours, never the other side's text
	// Retry lets the kind's policy try again, after Wait at least (the
	// other side's Retry-After).
	Retry bool
	Wait  time.Duration
	// Detail (JSON) is kept on the job's failure for the context (the
	// provider it tried last): FailWith.
	Detail any
}

func (f *Failure) Error() string { return "job attempt failed: " + f.Code + ": " + f.Reason }

// Fail is a final failure: the same call would fail the same way (a
// refusal, invalid input). A person may still Retry the job.
func Fail(code, reason string) error { return &Failure{Code: code, Reason: reason} }

// FailWith is Fail or Retryable (retry) with a detail (JSON) kept on the
// job's failure for the context's read models and notifications.
func FailWith(code, reason string, retry bool, wait time.Duration, detail any) error {
	return &Failure{Code: code, Reason: reason, Retry: retry, Wait: wait, Detail: detail}
}

// Retryable is a failure worth trying again later (a rate limit, an outage
// of the other side): the policy retries after its backoff or wait,
// whichever is later.
func Retryable(code, reason string, wait time.Duration) error {
	return &Failure{Code: code, Reason: reason, Retry: true, Wait: wait}
}

type unconfirmed struct {
	reason     string
	detail     any
	probeAfter time.Duration
}

func (u *unconfirmed) Error() string { return "job attempt unconfirmed: " + u.reason }

// Unconfirmed: the call was made and no answer came; the other side may
// have acted. Probe settles it after probeAfter (how long the other side
// takes to show it), with detail (JSON) in Attempt.Detail.
func Unconfirmed(reason string, detail any, probeAfter time.Duration) error {
	return &unconfirmed{reason: reason, detail: detail, probeAfter: probeAfter}
}

type notDone struct{ reason string }

func (n *notDone) Error() string { return "job attempt not done: " + n.reason }

// NotDone: the attempt provably did nothing (it stopped before its call):
// a new attempt goes at once while the policy allows.
func NotDone(reason string) error { return &notDone{reason: reason} }

type later struct{ reason string }

func (l *later) Error() string { return "job probe: ask again later: " + l.reason }

// Later is Probe's "cannot tell yet" (the other side does not show it
// yet): the probe is asked again, with a backoff.
func Later(reason string) error { return &later{reason: reason} }

// outcomeOf reads Do's answer as an outcome. An error it cannot classify
// is an unknown outcome: the probe decides, never a blind retry.
func outcomeOf(result json.RawMessage, err error, now time.Time) domain.Outcome {
	var f *Failure
	var u *unconfirmed
	var n *notDone
	switch {
	case err == nil:
		return domain.Outcome{Succeeded: true, Result: result}
	case errors.As(err, &f):
		var detail json.RawMessage
		if f.Detail != nil {
			detail, _ = json.Marshal(f.Detail)
		}
		return domain.Outcome{Failure: &domain.FailureOutcome{Code: bound(f.Code, text.MaxID), Reason: bound(f.Reason, text.MaxReason),
			Retry: f.Retry, Wait: f.Wait, Detail: detail}}
	case errors.As(err, &n):
		return domain.Outcome{NotDone: true, Reason: bound(n.reason, text.MaxReason)}
	case errors.As(err, &u):
		var detail json.RawMessage
		if u.detail != nil {
			detail, _ = json.Marshal(u.detail)
		}
		return domain.Outcome{Unconfirmed: true, Reason: bound(u.reason, text.MaxReason), Detail: detail, ProbeAt: now.Add(u.probeAfter)}
	}
	return domain.Outcome{Unconfirmed: true, Reason: "unclassified error", ProbeAt: now}
}

// bound keeps recorded words short (they are ours, but errors may quote input).
func bound(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
