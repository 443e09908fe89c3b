package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/ai"
)

// TestReadsNeverShowAnotherOrganization: every read route of the gateway,
// probed by a second organization after the first made calls, caps, a
// meter and a fee, shows none of it; the first's ids are missing to it.
func TestReadsNeverShowAnotherOrganization(t *testing.T) {
	h := start(t)
	fake(t, h, ai.Provider1)
	apptest.Must(t, post(t, h, "/api/ai/completions", "", map[string]any{"prompt": "secret words of the first", "app_id": "first-app"}),
		http.StatusOK, "call")
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": 123,
		"capMode": "hard"}), http.StatusOK, "cap")
	apptest.Must(t, post(t, h, "/api/billing/byok-fee", "", map[string]any{"serviceFeeBps": 250}), http.StatusOK, "fee")
	apptest.Must(t, h.Do(t, "gateway", http.MethodPut, "/api/billing/meters/first-meter", "", map[string]any{"meter_key": "ai.tokens",
		"included_units": 10}), http.StatusOK, "meter")
	usageEvents(t, h, "", 1)
	var caps struct {
		Caps []struct {
			ID string `json:"id"`
		} `json:"caps"`
	}
	apptest.Eventually(t, 20*time.Second, "the first's cap and audit", func() bool {
		get(t, h, "/api/billing/spend-caps", "").JSON(t, &caps)
		return len(caps.Caps) == 1 && strings.Contains(string(get(t, h, "/api/audit", "").Body), "first-meter")
	})
	_, other := h.NewOrganization(t, "Prober", testenv.UniqueName("prober"), apptest.DefaultScopes...)
	first := []string{h.OrgID, "first-app", "first-meter", caps.Caps[0].ID, "secret words", `"serviceFeeBps":250`, `"service_fee_bps":250`}
	for _, path := range []string{"/api/widget", "/api/organization", "/api/audit?limit=200", "/api/usage/events?limit=200",
		"/api/usage/events?event_type=ai.completions", "/api/usage/key-health", "/api/usage/snapshots/daily?days=90", "/api/billing/overview",
		"/api/billing/spend-caps", "/api/billing/meters"} {
		res := get(t, h, path, other)
		apptest.Must(t, res, http.StatusOK, path)
		for _, s := range first {
			if strings.Contains(string(res.Body), s) {
				t.Errorf("%s shows the first organization's %q: %s", path, s, res.Body)
			}
		}
		if strings.Contains(path, "daily") && strings.Contains(string(res.Body), `"calls":1`) {
			t.Errorf("%s counts the first organization's call", path)
		}
	}
	// The first's ids are missing ones to the second.
	apptest.ExpectProblem(t, h.Do(t, "gateway", http.MethodDelete, "/api/billing/spend-caps/"+caps.Caps[0].ID, other, nil), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "gateway", http.MethodDelete, "/api/billing/meters/first-meter", other, nil), http.StatusNotFound, "not_found")
	// The first's hard cap does not bind the second.
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": 0,
		"capMode": "hard"}), http.StatusOK, "zero cap")
	apptest.ExpectProblem(t, post(t, h, "/api/ai/completions", "", map[string]any{"prompt": "x"}), http.StatusPaymentRequired, "spend_cap_exceeded")
	apptest.Must(t, post(t, h, "/api/ai/completions", other, map[string]any{"prompt": "x"}), http.StatusOK, "the second's call")
}
