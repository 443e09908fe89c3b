package status

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/outbound"
)

// CheckResult is what one check saw and what the component became.
// Error is a reason word of the outbound client (timeout, refused, blocked,
// dns, tls, ...), never raw error text: tenants see it.
type CheckResult struct {
	ComponentID      string `json:"component_id"`
	HTTPStatus       int    `json:"http_status"`
	Error            string `json:"error,omitempty"`
	Status           string `json:"status"`
	ConsecutiveFails int    `json:"consecutive_fails"`
	// Skipped: the organization's budget ran out before this check started;
	// nothing was recorded and Status is the component's current one.
	Skipped bool `json:"skipped,omitempty"`
}

// PollReport is the answer of one poll of an organization.
type PollReport struct {
	Polled  int           `json:"polled"`
	Skipped int           `json:"skipped"`
	Results []CheckResult `json:"results"`
}

// Checker performs the HTTP checks of components through the outbound
// client (tenant URLs: no internal address is reachable), at most Workers at
// once in this process, over all organizations.
type Checker struct {
	client  *outbound.Client
	timeout time.Duration
	slots   chan struct{}
}

func NewChecker(client *outbound.Client, cfg Config) *Checker {
	cfg = cfg.WithDefaults()
	return &Checker{client: client, timeout: cfg.CheckTimeout, slots: make(chan struct{}, cfg.Workers)}
}

// Check GETs the surface; status 0 with a reason word means no usable answer.
// Redirects are followed (bounded, each target checked by the outbound
// client); the final answer counts.
func (c *Checker) Check(ctx context.Context, url string) (int, string) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.client.Get(ctx, url)
	if err != nil && resp != nil && outbound.ReasonOf(err) == outbound.ReasonTooLarge {
		return resp.StatusCode, "" // the surface answered; its body is not the check's business
	}
	if err != nil {
		return 0, string(outbound.ReasonOf(err))
	}
	return resp.StatusCode, ""
}

// acquire takes a slot unless ctx ends first (or has ended: select would
// pick a free slot at random over a closed Done).
func acquire(ctx context.Context, slots chan struct{}) bool {
	if ctx.Err() != nil {
		return false
	}
	select {
	case slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// Poll checks an organization's surfaces in parallel and records every
// result as a command. At most OrgConcurrency checks of the organization run
// at once (and Workers in the process); no check starts later than OrgBudget
// after the organization's first one, the rest are skipped this time, so a
// tenant with many slow components only delays itself. A started check runs
// to its own timeout. The idempotency key, when round is set, makes a
// repeated round a no-op.
func (h *Handlers) Poll(ctx context.Context, m commands.Meta, checker *Checker, surfaces []Surface, round string) (PollReport, error) {
	report := PollReport{Results: make([]CheckResult, len(surfaces))}
	orgSlots := make(chan struct{}, h.cfg.OrgConcurrency)
	// The budget starts with the first check that gets a worker: waiting for
	// other tenants' checks is not this organization's time.
	budget, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []error
	)
	for i, s := range surfaces {
		if !acquire(budget, orgSlots) {
			report.skip(surfaces[i:], i)
			break
		}
		if !acquire(budget, checker.slots) {
			<-orgSlots
			report.skip(surfaces[i:], i)
			break
		}
		if i == 0 {
			defer time.AfterFunc(h.cfg.OrgBudget, cancel).Stop()
		}
		wg.Go(func() {
			defer func() { <-checker.slots; <-orgSlots }()
			code, reason := checker.Check(ctx, s.CheckURL)
			cm := m
			if round != "" {
				cm.IdempotencyKey = "poll:" + round + ":" + s.ComponentID
				cm.RequestHash = eventstore.HashRequest([]byte(cm.IdempotencyKey))
			}
			res, err := h.RecordCheck(ctx, cm, RecordCheck{ComponentID: s.ComponentID, HTTPStatus: code, Error: reason})
			if err != nil {
				mu.Lock()
				failed = append(failed, fmt.Errorf("record check of %s: %w", s.ComponentID, err))
				mu.Unlock()
				report.Results[i] = CheckResult{ComponentID: s.ComponentID, HTTPStatus: code, Error: reason,
					Status: s.Status, ConsecutiveFails: s.ConsecutiveFails}
				return
			}
			report.Results[i] = CheckResult{ComponentID: s.ComponentID, HTTPStatus: code, Error: reason,
				Status: res.Value.Status, ConsecutiveFails: res.Value.ConsecutiveFails}
		})
	}
	wg.Wait()
	report.Polled = len(surfaces) - report.Skipped
	return report, errors.Join(failed...)
}

// skip reports surfaces from index from on as not checked.
func (r *PollReport) skip(rest []Surface, from int) {
	for j, s := range rest {
		r.Results[from+j] = CheckResult{ComponentID: s.ComponentID, Status: s.Status, ConsecutiveFails: s.ConsecutiveFails, Skipped: true}
	}
	r.Skipped = len(rest)
}

// PollOrganization is status.poll: at most one per ManualPollInterval per
// organization (429 rate_limited otherwise), over the components the write
// side holds now, so a component registered just before is polled.
func (h *Handlers) PollOrganization(ctx context.Context, m commands.Meta, checker *Checker) (PollReport, error) {
	if err := h.claimManualPoll(ctx, m.OrganizationID); err != nil {
		return PollReport{}, err
	}
	surfaces, err := h.Surfaces(ctx, m.OrganizationID)
	if err != nil {
		return PollReport{}, err
	}
	m.IdempotencyKey = "" // each component's check is its own command
	return h.Poll(ctx, m, checker, surfaces, "")
}

// SurfaceLister lists every organization's components.
type SurfaceLister func(ctx context.Context) (map[string][]Surface, error)

// PollerLock makes the poller one per deployment (declared by the status
// module).
var PollerLock = leader.Named("status.poller")

// RunPoller polls every organization's components each interval, as the one
// leader holding the poller lock. Organizations are polled side by side,
// sharing the checker's workers, each within its own budget. Rounds are
// numbered by time, so two leaders in a hand-over never record the same
// round twice.
func (h *Handlers) RunPoller(ctx context.Context, pool *pgxpool.Pool, list SurfaceLister, checker *Checker, interval time.Duration, log *slog.Logger) {
	err := leader.Run(ctx, pool, PollerLock, leader.Config{}, log, leader.Every(interval, func(ctx context.Context) {
		h.pollRound(ctx, list, checker, fmt.Sprint(time.Now().UnixMilli()/max(interval.Milliseconds(), 1)), log)
	}))
	if err != nil {
		log.Error("poller: not started", "err", err)
	}
}

// pollRound is one round of the periodic poller.
func (h *Handlers) pollRound(ctx context.Context, list SurfaceLister, checker *Checker, round string, log *slog.Logger) {
	all, err := list(ctx)
	if err != nil {
		log.Warn("poller: list components", "err", err)
		return
	}
	var wg sync.WaitGroup
	for org, surfaces := range all {
		wg.Go(func() {
			m := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "status-poller", Type: "system"}}
			report, err := h.Poll(ctx, m, checker, surfaces, round)
			if err != nil {
				log.Warn("poller: poll", "organization", org, "err", err)
			}
			if report.Skipped > 0 {
				log.Info("poller: organization budget exhausted", "organization", org, "skipped", report.Skipped)
			}
		})
	}
	wg.Wait()
}
