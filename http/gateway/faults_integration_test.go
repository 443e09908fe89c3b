package gateway_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/fakekit"
)

// TestProviderFaultsAreClassifiedMeteredAndAnswered: every fault of the
// fake provider is one usage event with its outcome and the right problem;
// only the provider's own failures (5xx, its timeout, a malformed answer)
// move its health, and only transitions are events (and notifications,
// each valid against its contract).
func TestProviderFaultsAreClassifiedMeteredAndAnswered(t *testing.T) {
	h := start(t, func(c *gatewaymod.Config) { c.Metering.CallTimeout = 700 * time.Millisecond })
	kit := fake(t, h, ai.Provider1)
	body := map[string]any{"prompt": "hello"}
	steps := []struct {
		name    string
		fault   fakekit.Fault
		status  int
		code    string
		outcome string
	}{
		{"bad input", fakekit.Status(400), 422, "invalid_input", "invalid_request"},
		{"revoked key", fakekit.Status(401), 502, "provider_unauthorized", "unauthorized"},
		{"rate limited", fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 3 * time.Second}, 429, "provider_rate_limited", "rate_limited"},
		{"server error", fakekit.Status(500), 502, "provider_error", "provider_error"}, // degraded
		{"unavailable", fakekit.Status(503), 502, "provider_error", "provider_error"},
		{"hang", fakekit.Fault{Kind: fakekit.Hang}, 504, "provider_timeout", "timeout"},
		{"malformed", fakekit.Fault{Kind: fakekit.Malformed}, 502, "provider_error", "provider_error"},
		{"success", fakekit.Fault{}, 200, "", "ok"},                                          // recovered
		{"server error again", fakekit.Status(502), 502, "provider_error", "provider_error"}, // degraded
	}
	for i, s := range steps {
		kit.Next(1, s.fault)
		res := post(t, h, "/api/ai/completions", "", body)
		if s.status == 200 {
			apptest.Must(t, res, 200, s.name)
		} else {
			p := apptest.ExpectProblem(t, res, s.status, s.code)
			if s.status == 429 && res.Header.Get("Retry-After") != "3" {
				t.Fatalf("%s: Retry-After %q, want 3", s.name, res.Header.Get("Retry-After"))
			}
			if contains(string(res.Body), aifake.SecretMarker) {
				t.Fatalf("%s: the provider's body leaked into the answer: %s (%v)", s.name, res.Body, p)
			}
		}
		events := usageEvents(t, h, "", i+1)
		if events[0]["outcome"] != s.outcome {
			t.Fatalf("%s: usage outcome %v, want %s", s.name, events[0]["outcome"], s.outcome)
		}
	}
	// A caller's own short deadline: not the provider's fault.
	kit.Next(1, fakekit.Fault{Kind: fakekit.Hang})
	short := &http.Client{Timeout: 200 * time.Millisecond}
	req, _ := http.NewRequest(http.MethodPost, h.URLs["gateway"]+"/api/ai/completions", jsonBody(body))
	req.Header.Set("Authorization", "Bearer "+h.APIKey)
	req.Header.Set("Content-Type", "application/json")
	if res, err := short.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("the caller's deadline should have ended the request")
	}
	if events := usageEvents(t, h, "", len(steps)+1); events[0]["outcome"] != "caller_canceled" {
		t.Fatalf("caller deadline: outcome %v", events[0]["outcome"])
	}
	var degraded, recovered int
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE event_type = 'gateway.provider.degraded'),
		count(*) FILTER (WHERE event_type = 'gateway.provider.recovered') FROM es_events WHERE organization_id = $1`, h.OrgID).
		Scan(&degraded, &recovered); err != nil {
		t.Fatal(err)
	}
	if degraded != 2 || recovered != 1 {
		t.Fatalf("health transitions: %d degraded, %d recovered; want 2 and 1", degraded, recovered)
	}
	apptest.Eventually(t, 30*time.Second, "3 health notifications", func() bool {
		return h.Count(t, `SELECT count(*) FROM notification_deliveries WHERE organization_id = $1 AND type LIKE 'gateway.provider.%'`, h.OrgID) == 3
	})
	if n := h.Count(t, `SELECT count(*) FROM notification_deliveries WHERE state = 'invalid'`); n != 0 {
		t.Fatalf("%d invalid notifications", n)
	}
	var health struct {
		Keys []struct {
			Provider  string  `json:"provider"`
			Status    string  `json:"status"`
			Failures  int     `json:"failures"`
			Successes int     `json:"successes"`
			Rate      float64 `json:"failure_rate"`
		} `json:"keys"`
	}
	apptest.Eventually(t, 10*time.Second, "key health", func() bool {
		get(t, h, "/api/usage/key-health", "").JSON(t, &health)
		return len(health.Keys) == 1 && health.Keys[0].Status == "degraded" && health.Keys[0].Failures == 7
	})
}

// TestStreamFaults: a stream the provider never starts (a hang past the
// timeout, a 503 before any delta) is an ordinary problem answer, metered;
// the hang is the provider's timeout (504) and degrades its health.
func TestStreamFaults(t *testing.T) {
	h := start(t, func(c *gatewaymod.Config) { c.Metering.CallTimeout = 700 * time.Millisecond })
	kit := fake(t, h, ai.Provider2)
	for _, s := range []struct {
		fault   fakekit.Fault
		status  int
		code    string
		outcome string
	}{
		{fakekit.Fault{Kind: fakekit.Hang}, http.StatusGatewayTimeout, "provider_timeout", "timeout"},
		{fakekit.Status(503), http.StatusBadGateway, "provider_error", "provider_error"},
	} {
		kit.Next(1, s.fault)
		res, _ := openStream(t, h, "", map[string]any{"provider": "ai_provider_2", "prompt": "hello"})
		body := readAll(t, res.Body)
		if res.StatusCode != s.status || !contains(body, `"code":"`+s.code+`"`) {
			t.Fatalf("%v: %d %s", s.fault, res.StatusCode, body)
		}
	}
	events := usageEvents(t, h, "", 2)
	if events[0]["outcome"] != "provider_error" || events[1]["outcome"] != "timeout" {
		t.Fatalf("outcomes %v, %v", events[1]["outcome"], events[0]["outcome"])
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE organization_id = $1 AND event_type = 'gateway.provider.degraded'`, h.OrgID); n != 1 {
		t.Fatalf("%d degraded events, want 1", n)
	}
}
