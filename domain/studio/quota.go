package studio

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/event"
)

// Quotas count, per workspace, action and calendar month (UTC), the actions
// that cost work: render jobs and generation requests. Past the limit the
// action is refused (429 quota_exceeded until the month ends); crossing the
// warning share claims the month's warning once (studio.quota.warning).

// Actions that count against a quota.
const (
	QuotaRenders     = "projects.render_jobs.create"
	QuotaGenerations = "generation.requests.create" // planning/generate and scenes' regenerate
)

// QuotaClaim is one counted action: the month's count after it.
type QuotaClaim struct {
	Action    string `json:"action"`
	PeriodKey string `json:"periodKey"`
	Used      int    `json:"used"`
	Limit     int    `json:"limit"`
}

// PeriodKey is the month of t (UTC): "2026-04".
func PeriodKey(t time.Time) string { return t.UTC().Format("2006-01") }

// PeriodEnd is when the month of t ends.
func PeriodEnd(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
}

// Warns reports whether used crosses the warning share of limit (percent).
func Warns(used, limit, percent int) bool {
	return limit > 0 && used*100 >= limit*percent
}

// QuotaStreamID is the stream of one workspace, action and month: it holds
// the month's warning, once.
func QuotaStreamID(workspaceID, action, period string) string {
	return "quota:" + workspaceID + ":" + action + ":" + period
}

var warningSpace = uuid.MustParse("6f1d0c0e-6a43-4f63-9a35-5b1f2d8c7e10")

// WarningID is the deterministic id of a month's warning.
func WarningID(workspaceID, action, period string) string {
	return uuid.NewSHA1(warningSpace, []byte(workspaceID+"\x00"+action+"\x00"+period)).String()
}

// QuotaModel is the write model of one quota stream.
type QuotaModel struct{ claimed bool }

func LoadQuota(history []event.Recorded) (*QuotaModel, error) {
	return quotaFold.Load(&QuotaModel{}, history)
}

var quotaFold = event.Fold[*QuotaModel]{
	QuotaWarningClaimed: event.Mark(func(m *QuotaModel) { m.claimed = true }),
}

// Claimed reports whether the month's warning was claimed.
func (m *QuotaModel) Claimed() bool { return m.claimed }

// ClaimWarning claims the month's warning once: a second claim (another
// action crossing the share, a retry) changes nothing.
func (m *QuotaModel) ClaimWarning(workspaceID string, c QuotaClaim, now time.Time) ([]event.Change, error) {
	if m.claimed {
		return nil, nil
	}
	return []event.Change{event.New(QuotaWarningClaimed, QuotaWarningV1{
		WarningID: WarningID(workspaceID, c.Action, c.PeriodKey), WorkspaceID: workspaceID, Action: c.Action, PeriodKey: c.PeriodKey,
		Used: c.Used, Limit: c.Limit, At: now,
		Warning: fmt.Sprintf("%d of %d %s this month (%s): the workspace's monthly quota is almost used", c.Used, c.Limit, c.Action, c.PeriodKey),
	})}, nil
}
