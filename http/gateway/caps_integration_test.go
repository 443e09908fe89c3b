package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/providers/ai"
)

// TestHardCapRace: 100 concurrent calls at the edge of a hard cap, in
// waves until the cap refuses every one: settled spend never passes the
// cap, nothing stays reserved, every refusal is 402 spend_cap_exceeded
// before any provider call, and the usage events add up to the budget.
func TestHardCapRace(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider1)
	const capCents = 0.5 // 500,000 micro-cents
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": capCents,
		"capMode": "hard"}), http.StatusOK, "cap")
	words := strings.Repeat("word ", 40)
	body := map[string]any{"prompt": words, "max_tokens": 60}
	var ok, refused int
	for wave := 0; wave < 20; wave++ {
		var mu sync.Mutex
		var wg sync.WaitGroup
		waveOK := 0
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := post(t, h, "/api/ai/completions", "", body)
				mu.Lock()
				defer mu.Unlock()
				switch res.Status {
				case http.StatusOK:
					ok++
					waveOK++
				case http.StatusPaymentRequired:
					refused++
					if !strings.Contains(string(res.Body), `"code":"spend_cap_exceeded"`) {
						t.Errorf("402 body %s", res.Body)
					}
				default:
					t.Errorf("status %d: %s", res.Status, res.Body)
				}
			}()
		}
		wg.Wait()
		settled, reserved := budget(t, h, h.OrgID, "organization")
		if settled > capCents*1e6 || reserved != 0 {
			t.Fatalf("wave %d: settled %d reserved %d micro-cents, cap %d", wave, settled, reserved, int64(capCents*1e6))
		}
		if waveOK == 0 {
			break
		}
	}
	settled, _ := budget(t, h, h.OrgID, "organization")
	if ok == 0 || refused == 0 {
		t.Fatalf("%d answered, %d refused: the test never reached the cap", ok, refused)
	}
	if calls := len(kit.Requests()); calls != ok {
		t.Fatalf("the provider saw %d calls, %d were answered: refused calls must never reach it", calls, ok)
	}
	var events, sum int64
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT count(*), COALESCE(sum((payload->>'cost_microcents')::bigint), 0) FROM es_events
		WHERE organization_id = $1 AND event_type = 'gateway.usage.recorded'`, h.OrgID).Scan(&events, &sum); err != nil {
		t.Fatal(err)
	}
	if events != int64(ok) || sum != settled {
		t.Fatalf("%d usage events costing %d; %d answered, budget settled %d", events, sum, ok, settled)
	}
	t.Logf("cap %v cents: %d calls answered, %d refused, settled %.4f cents", capCents, ok, refused, float64(settled)/1e6)
}

// TestUserCapAndSoftCap: a user's hard cap refuses that user's calls only;
// a soft cap refuses nothing.
func TestUserCapAndSoftCap(t *testing.T) {
	h := start(t)
	fake(t, h, ai.Provider1)
	var me struct {
		Events []struct {
			PrincipalID string `json:"principal_id"`
		} `json:"events"`
	}
	apptest.Must(t, post(t, h, "/api/ai/completions", "", map[string]any{"prompt": "hi"}), http.StatusOK, "first call")
	events := usageEvents(t, h, "", 1)
	me.Events = append(me.Events, struct {
		PrincipalID string `json:"principal_id"`
	}{events[0]["principal_id"].(string)})
	principal := me.Events[0].PrincipalID
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": 0,
		"capMode": "soft", "notifyThresholds": []float64{50}}), http.StatusOK, "soft cap")
	apptest.Must(t, post(t, h, "/api/ai/completions", "", map[string]any{"prompt": "hi"}), http.StatusOK, "a soft cap refuses nothing")
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "user", "scopeValue": principal,
		"monthlyCapCents": 0.0001, "capMode": "hard"}), http.StatusOK, "user cap")
	res := post(t, h, "/api/ai/completions", "", map[string]any{"prompt": "hi"})
	p := apptest.ExpectProblem(t, res, http.StatusPaymentRequired, "spend_cap_exceeded")
	if !strings.Contains(p.Detail, "user:"+principal) {
		t.Fatalf("the refusal names %q", p.Detail)
	}
	_, other := h.NewOrganization(t, "Other", "other-"+strings.ToLower(principal[:8]), apptest.DefaultScopes...)
	apptest.Must(t, post(t, h, "/api/ai/completions", other, map[string]any{"prompt": "hi"}), http.StatusOK, "another organization's call")
}
