package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/actioncall"
)

// MaxOutput bounds what a run keeps of an action's answer (a job's result
// is at most 64 KiB): a larger answer is recorded as truncated (null), and
// a later step that refers to it fails to resolve its input.
const MaxOutput = 48 << 10

// How a step runs: its job (kind agent.step, one per step of a run, id
// "<run>.<step>") calls the action over the platform's own HTTP API, at the
// service's base URL, with the flow's delegated credential and an
// Idempotency-Key derived from the run and the step, the same for every
// attempt: the platform's commands record a key with their events and
// answer a repeat with the first result, so a retried step, or one whose
// worker was killed mid-call, never acts twice. That is also why the
// kind's Probe answers "not found": the call cannot be looked up, but it
// is safe to repeat, and the repeat is the lookup.

// Kind is the step job's kind (the module's Parts.Jobs).
func (h *Handlers) Kind() jobs.Kind { return h.steps }

func (h *Handlers) defineSteps(cmds *jobs.Commands) error {
	var err error
	h.steps, err = jobs.Define(cmds, jobs.Spec[domain.StepInput, domain.CallResult]{
		Name: domain.StepKind,
		Do:   h.call,
		// Not found: the attempt is made again, with the same key.
		Probe: func(context.Context, *jobs.Attempt[domain.StepInput]) (domain.CallResult, bool, error) {
			return domain.CallResult{}, false, nil
		},
		Retry:   domjobs.RetryPolicy{MaxAttempts: h.cfg.StepAttempts, Backoff: h.cfg.StepBackoff, MaxBackoff: max(5*time.Minute, h.cfg.StepBackoff)},
		Lease:   h.cfg.StepLease,
		Timeout: h.cfg.StepTimeout + 5*time.Second,
		Changed: h.changed,
	})
	return err
}

// call is the step job's Do: one attempt at one step's action.
func (h *Handlers) call(ctx context.Context, a *jobs.Attempt[domain.StepInput]) (domain.CallResult, error) {
	r, err := h.Run(ctx, a.OrganizationID, a.Input.RunID)
	if err != nil {
		if errs.KindOf(err) == errs.KindNotFound {
			return domain.CallResult{}, jobs.Fail("run_missing", "the step's run does not exist")
		}
		return domain.CallResult{}, jobs.NotDone("the run could not be read")
	}
	i := a.Input.Step
	def, ok := r.Def(i)
	if !ok || def.Call == nil {
		return domain.CallResult{}, jobs.Fail("step_missing", "the run has no such action step")
	}
	if s := r.Steps[i]; s.Status != domain.StepQueued {
		// Cancelled, or settled by an earlier attempt's outcome.
		return domain.CallResult{}, jobs.Fail("superseded", "the step no longer waits for its action ("+s.Status+")")
	}
	base := h.catalog.BaseURL(def.Service)
	if base == "" {
		return domain.CallResult{}, jobs.Fail("service_missing", "the platform has no service "+def.Service)
	}
	c := def.Call
	plan, err := actioncall.PlanCall(base, c.Method, c.Path, c.ReadOnly, c.Permission, c.RequiresConfirmation, c.Destructive, r.Steps[i].Input)
	if err != nil {
		// The input resolved, yet does not fill the path: the action's
		// answer would be a 404 or 405; say why instead.
		return domain.CallResult{Status: http.StatusUnprocessableEntity,
			Body: problem("invalid_input", err.Error())}, nil
	}
	var token string
	if c.Permission != "" {
		scopes := r.FlowScopes(c.AppID)
		if token, err = h.creds.Token(ctx, a.OrganizationID, r.FlowID, r.FlowName, r.Owner, c.AppID, scopes); err != nil {
			if commands.IsOutage(err) {
				return domain.CallResult{}, jobs.Retryable("dependency_unavailable", "the delegated credential could not be read", 0)
			}
			return domain.CallResult{}, jobs.Fail("credential_unavailable", "no credential could be delegated for the step")
		}
	}
	cctx, cancel := context.WithTimeout(ctx, h.cfg.StepTimeout)
	defer cancel()
	var body io.Reader
	if len(plan.Body) > 0 {
		body = bytes.NewReader(plan.Body)
	}
	req, err := http.NewRequestWithContext(cctx, plan.Method, plan.URL, body)
	if err != nil {
		return domain.CallResult{}, jobs.Fail("invalid_request", "the step's request could not be made")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if len(plan.Body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if !c.ReadOnly {
		req.Header.Set("Idempotency-Key", domain.IdempotencyKey(r.ID, i))
	}
	if min := positionsOf(r.PositionsBefore(i)); min != "" {
		req.Header.Set("X-Platform-Min-Position", min)
	}
	// The request id is the correlation id of the events the call causes:
	// the event-trigger reactor reads it to bound chains of runs.
	req.Header.Set("X-Request-Id", CorrelationOf(r.FlowID, r.ID, i))
	resp, err := h.client.Do(req)
	if err != nil {
		if ctx.Err() != nil && cctx.Err() == nil {
			return domain.CallResult{}, ctx.Err()
		}
		// Sent or not, the repeat carries the same key: ask again later.
		return domain.CallResult{}, jobs.Unconfirmed("the platform did not answer", nil, h.cfg.StepBackoff)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxOutput+1))
	if err != nil {
		return domain.CallResult{}, jobs.Unconfirmed("the answer was cut", nil, h.cfg.StepBackoff)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable ||
		resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout:
		return domain.CallResult{}, jobs.Retryable(codeOf(raw, "dependency_unavailable"), "the action answered "+strconv.Itoa(resp.StatusCode),
			retryAfter(resp.Header.Get("Retry-After")))
	case resp.StatusCode >= 500:
		// The request's key makes a repeat safe; its answer was not one.
		return domain.CallResult{}, jobs.Retryable(codeOf(raw, "internal"), "the action answered "+strconv.Itoa(resp.StatusCode), 0)
	}
	out := domain.CallResult{Status: resp.StatusCode, Position: positionsOf([]string{resp.Header.Get("X-Platform-Position")})}
	switch {
	case len(raw) > MaxOutput:
		out.Truncated = true
	case len(bytes.TrimSpace(raw)) == 0:
		out.Body = json.RawMessage("null")
	case json.Valid(raw):
		out.Body = raw
	default:
		// Not JSON (a text answer): kept as a string, bounded so that its
		// escaped form stays within a job's result.
		out.Body, _ = json.Marshal(bound(string(raw), 8<<10))
	}
	return out, nil
}

// CorrelationOf is the request id a step's call carries.
func CorrelationOf(flowID, runID string, step int) string {
	return "agent.flow." + flowID + ".run." + runID + "." + strconv.Itoa(step)
}

// causedBy reads a correlation id made by CorrelationOf: the flow and run
// whose step caused an event.
func causedBy(correlation string) (flowID, runID string, ok bool) {
	rest, ok := strings.CutPrefix(correlation, "agent.flow.")
	if !ok {
		return "", "", false
	}
	flowID, rest, ok = strings.Cut(rest, ".run.")
	if !ok {
		return "", "", false
	}
	runID, _, ok = strings.Cut(rest, ".")
	return flowID, runID, ok
}

func problem(code, detail string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"code": code, "detail": detail})
	return b
}

func codeOf(body []byte, fallback string) string {
	var p struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(body, &p) == nil && p.Code != "" && len(p.Code) <= 64 {
		return p.Code
	}
	return fallback
}

func retryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s > 0 && s < 3600 {
		return time.Duration(s) * time.Second
	}
	return 0
}

// changed is told in the worker's process of each attempt claimed and
// settled: a settled step's run records it at once (the runs reactor is the
// record for what this misses).
func (h *Handlers) changed(ctx context.Context, j domjobs.Job) {
	if err := h.RecordStep(ctx, commands.Meta{}, j); err != nil {
		h.log.Warn("agent: a step's outcome is not recorded yet; the runs reactor will", "job", j.ID, "err", err)
	}
}

// RecordStep settles a run's step from its job (a no-op while the job is on
// its way, or once the step is settled), and puts the next step on its way.
func (h *Handlers) RecordStep(ctx context.Context, m commands.Meta, j domjobs.Job) error {
	runID, step, ok := stepOf(j.ID)
	if !ok {
		return nil
	}
	if j.State != domjobs.Succeeded && j.State != domjobs.Cancelled && !(j.State == domjobs.Failed && j.Settled()) {
		return nil
	}
	if m.OrganizationID == "" {
		m = systemMeta(j.OrganizationID, "steps", "")
	}
	now := h.now()
	res, err := h.onRun(ctx, m, runID, func(r *domain.Run) ([]event.Change, error) {
		return r.RecordJob(step, j, h.policy(), now)
	})
	if err != nil {
		return err
	}
	if !res.Replayed {
		h.dispatch(ctx, j.OrganizationID, res.Value)
	}
	return nil
}

func stepOf(jobID string) (string, int, bool) {
	i := strings.LastIndexByte(jobID, '.')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(jobID[i+1:])
	return jobID[:i], n, err == nil
}

// positionsOf merges positions headers (each stream at its latest version),
// at most eventstore.MaxPositions of them: "" when none parse.
func positionsOf(headers []string) string {
	var all eventstore.Positions
	for _, h := range headers {
		if h == "" {
			continue
		}
		ps, err := eventstore.ParsePositions(h)
		if err != nil {
			continue
		}
		for _, p := range ps {
			if len(all) < eventstore.MaxPositions {
				all = all.Add(p)
			}
		}
	}
	return all.String()
}
