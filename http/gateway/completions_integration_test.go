package gateway_test

import (
	"net/http"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/providers/ai"
)

// TestCompletionIsMeteredOnce: a completion answers the fake's text with
// its cost; the usage event records the raw units, the cost and the price
// table version; the budget holds exactly that cost; billing shows it as
// charged and as re-rated (no difference under the same table).
func TestCompletionIsMeteredOnce(t *testing.T) {
	h := start(t)
	fake(t, h, ai.Provider1)
	res := post(t, h, "/api/ai/completions", "", map[string]any{"messages": []map[string]any{{"role": "user", "content": "hello there gateway"}},
		"app_id": "studio"})
	apptest.Must(t, res, http.StatusOK, "completion")
	var out struct {
		Text      string  `json:"text"`
		CostCents float64 `json:"cost_cents"`
		RequestID string  `json:"request_id"`
		Sandbox   bool    `json:"sandbox"`
		Outcome   string  `json:"outcome"`
		Units     struct {
			InputTokens  int64 `json:"input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
		} `json:"units"`
	}
	res.JSON(t, &out)
	if out.Text != "echo: hello there gateway" || !out.Sandbox || out.Outcome != "ok" || out.CostCents <= 0 || out.Units.InputTokens == 0 {
		t.Fatalf("answer %s", res.Body)
	}
	events := usageEvents(t, h, "", 1)
	e := events[0]
	if e["request_id"] != out.RequestID || e["event_type"] != "ai.completions" || e["app_id"] != "studio" || e["use_case"] != "chat" ||
		e["outcome"] != "ok" || e["severity"] != "info" || e["connection_id"] != "sandbox:ai_provider_1" || e["price_version"] == "" {
		t.Fatalf("usage event %v", e)
	}
	settled, reserved := budget(t, h, h.OrgID, "organization")
	if float64(settled)/1e6 != out.CostCents || reserved != 0 {
		t.Fatalf("budget settled %d reserved %d, answer cost %v cents", settled, reserved, out.CostCents)
	}
	var overview struct {
		ChargedCents    float64 `json:"charged_cents"`
		RatedCents      float64 `json:"rated_cents"`
		DifferenceCents float64 `json:"difference_cents"`
		Providers       []struct {
			Key string `json:"key"`
		} `json:"providers"`
		Apps []struct {
			Key string `json:"key"`
		} `json:"apps"`
	}
	get(t, h, "/api/billing/overview", "").JSON(t, &overview)
	if overview.ChargedCents != out.CostCents || overview.RatedCents != out.CostCents || overview.DifferenceCents != 0 ||
		len(overview.Providers) != 1 || overview.Providers[0].Key != "ai_provider_1" || overview.Apps[0].Key != "studio" {
		t.Fatalf("overview %+v", overview)
	}
}
