package gateway_test

import (
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/fakekit"
)

// TestConcurrentCallsAreCountedOnce: calls that settle together (their
// settles share transactions) and whose usage events the read model applies
// in batches (its daily and monthly totals are counters summed per batch)
// are each counted once: the budget, the daily snapshot and the billing
// overview all equal the sum of the answers, failures included.
func TestConcurrentCallsAreCountedOnce(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider1)
	const n, failing = 40, 4
	kit.Next(failing, fakekit.Status(500))
	var mu sync.Mutex
	var cost float64
	ok := 0
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			res := h.Do(t, "gateway", http.MethodPost, "/api/ai/completions", "", map[string]any{"prompt": "count me once", "app_id": "studio"})
			mu.Lock()
			defer mu.Unlock()
			if res.Status != http.StatusOK {
				return
			}
			var out struct {
				CostCents float64 `json:"cost_cents"`
			}
			res.JSON(t, &out)
			cost += out.CostCents
			ok++
		})
	}
	wg.Wait()
	if ok != n-failing {
		t.Fatalf("%d calls answered 200, want %d", ok, n-failing)
	}
	usageEvents(t, h, "", n)
	settled, reserved := budget(t, h, h.OrgID, "organization")
	if math.Abs(float64(settled)/1e6-cost) > 1e-9 || reserved != 0 {
		t.Fatalf("budget settled %d reserved %d; the answers cost %v cents", settled, reserved, cost)
	}
	var daily struct {
		Days []struct {
			Calls     int64   `json:"calls"`
			Failures  int64   `json:"failures"`
			CostCents float64 `json:"cost_cents"`
		} `json:"days"`
	}
	var overview struct {
		ChargedCents float64 `json:"charged_cents"`
	}
	apptest.Eventually(t, 30*time.Second, "daily totals", func() bool {
		get(t, h, "/api/usage/snapshots/daily?days=1", "").JSON(t, &daily)
		return len(daily.Days) == 1 && daily.Days[0].Calls == n
	})
	if d := daily.Days[0]; d.Failures != failing || math.Abs(d.CostCents-cost) > 1e-9 {
		t.Fatalf("daily %+v; want %d failures and %v cents", d, failing, cost)
	}
	get(t, h, "/api/billing/overview", "").JSON(t, &overview)
	if math.Abs(overview.ChargedCents-cost) > 1e-9 {
		t.Fatalf("billing charged %v cents, want %v", overview.ChargedCents, cost)
	}
}
