package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/jobs"
)

// RegisterTimers registers the context's job timers: a failed attempt's
// retry (the job is queued again) and an attempt's reconciliation (its
// lease ran out, or it is unconfirmed: the probe settles it). A process
// fires them only if it runs the context's workers, where the kinds' Probe
// is.
func (w *Worker) RegisterTimers(r *timers.Registry) error {
	reconcile, retryKind := domain.TimerKinds(w.context)
	if err := r.Register(retryKind, w.fireRetry); err != nil {
		return err
	}
	return r.Register(reconcile, w.fireReconcile)
}

// jobOf reads a job timer's stream and payload.
func (w *Worker) jobOf(f timers.Fire) (*kind, string, int, error) {
	var p domain.TimerPayload
	rest, ok := strings.CutPrefix(f.StreamID, "job:")
	kindName, id, _ := strings.Cut(rest, ":")
	if err := json.Unmarshal(f.Payload, &p); err != nil || !ok || id == "" {
		return nil, "", 0, errs.InvalidField("/payload", "not a job timer") // parked: it would not change
	}
	k := w.kinds[kindName]
	if k == nil {
		// A kind of another release: another process may know it.
		return nil, "", 0, errs.Unavailable("jobs: this worker does not run kind "+kindName, nil)
	}
	return k, id, p.Attempt, nil
}

func (w *Worker) fireRetry(ctx context.Context, f timers.Fire) error {
	k, id, attempt, err := w.jobOf(f)
	if err != nil {
		return err
	}
	return k.cmds.retryDue(ctx, f.Meta, k.name, id, attempt, f.Option())
}

// fireReconcile settles an attempt whose lease ran out or whose outcome is
// unknown: Probe says whether it happened; found is succeeded, not found a
// new attempt (while the policy allows), a failure failed. A probe that
// cannot tell yet is asked again with the timers' backoff (an outage to
// them: never parked).
func (w *Worker) fireReconcile(ctx context.Context, f timers.Fire) error {
	k, id, number, err := w.jobOf(f)
	if err != nil {
		return err
	}
	j, err := k.cmds.load(ctx, f.OrganizationID, k.name, id)
	if err != nil {
		return err
	}
	if !j.Reconcilable(number) || j.ClaimedAt == nil {
		return nil // settled meanwhile
	}
	pctx, cancel := context.WithTimeout(ctx, k.probeTimeout)
	result, found, perr := k.probe(pctx, &attempt{job: j, number: number, claimedAt: *j.ClaimedAt})
	cancel()
	var o domain.Outcome
	var failure *Failure
	switch {
	case perr == nil && found:
		o = domain.Outcome{Succeeded: true, Result: result}
		probes.WithLabelValues(k.name, "found").Inc()
	case perr == nil:
		o = domain.Outcome{NotDone: true, Reason: "probe_not_found"}
		probes.WithLabelValues(k.name, "not_found").Inc()
	case errors.As(perr, &failure):
		o = outcomeOf(nil, perr, k.cmds.now())
		probes.WithLabelValues(k.name, "failed").Inc()
	default:
		probes.WithLabelValues(k.name, "later").Inc()
		return errs.Unavailable("jobs: the probe cannot tell yet", perr)
	}
	w.log.Info("jobs: attempt reconciled by its probe", "job", id, "kind", k.name, "attempt", number, "found", found, "state_was", j.State)
	return w.record(k, j, number, o, f.Meta, f.Option())
}
