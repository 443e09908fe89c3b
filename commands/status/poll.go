package status

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/eventstore"
)

// Surface is one component to check.
type Surface struct {
	ComponentID string
	CheckURL    string
}

// CheckResult is what one check saw and what the component became.
type CheckResult struct {
	ComponentID      string `json:"component_id"`
	HTTPStatus       int    `json:"http_status"`
	Error            string `json:"error,omitempty"`
	Status           string `json:"status"`
	ConsecutiveFails int    `json:"consecutive_fails"`
}

// Checker performs real HTTP checks of components.
type Checker struct {
	Client *http.Client
}

func NewChecker(timeout time.Duration) *Checker {
	return &Checker{Client: &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a redirect (3xx) is an answer, and counts as up
	}}}
}

// Check GETs the surface; status 0 with an error means no answer.
func (c *Checker) Check(ctx context.Context, url string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, ""
}

// Poll checks each surface now and records every result as a command. The
// idempotency key, when round is set, makes a repeated round a no-op.
func (h *Handlers) Poll(ctx context.Context, m commands.Meta, checker *Checker, surfaces []Surface, round string) ([]CheckResult, error) {
	out := make([]CheckResult, 0, len(surfaces))
	for _, s := range surfaces {
		code, checkErr := checker.Check(ctx, s.CheckURL)
		cm := m
		if round != "" {
			cm.IdempotencyKey = "poll:" + round + ":" + s.ComponentID
			cm.RequestHash = eventstore.HashRequest([]byte(cm.IdempotencyKey))
		}
		res, err := h.RecordCheck(ctx, cm, RecordCheck{ComponentID: s.ComponentID, HTTPStatus: code, Error: checkErr})
		if err != nil {
			return out, fmt.Errorf("record check of %s: %w", s.ComponentID, err)
		}
		out = append(out, CheckResult{ComponentID: s.ComponentID, HTTPStatus: code, Error: checkErr,
			Status: res.Value.Status, ConsecutiveFails: res.Value.ConsecutiveFails})
	}
	return out, nil
}

// SurfaceLister lists every organization's components.
type SurfaceLister func(ctx context.Context) (map[string][]Surface, error)

// pollerLockID makes the periodic poller run in one process only.
const pollerLockID = 7_310_003

// RunPoller polls every organization's components each interval, as the one
// leader holding the poller lock. Rounds are numbered by time, so two
// leaders in a hand-over never record the same round twice.
func (h *Handlers) RunPoller(ctx context.Context, pool *pgxpool.Pool, list SurfaceLister, checker *Checker, interval time.Duration, log *slog.Logger) {
	commands.EveryAsLeader(ctx, pool, pollerLockID, interval, log, func(ctx context.Context) {
		all, err := list(ctx)
		if err != nil {
			log.Warn("poller: list components", "err", err)
			return
		}
		round := fmt.Sprint(time.Now().UnixMilli() / max(interval.Milliseconds(), 1))
		for org, surfaces := range all {
			m := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "status-poller", Type: "system"}}
			if _, err := h.Poll(ctx, m, checker, surfaces, round); err != nil {
				log.Warn("poller: poll", "organization", org, "err", err)
			}
		}
	})
}
