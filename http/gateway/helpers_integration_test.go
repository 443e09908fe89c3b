package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
)

// start runs a platform whose gateway serves the sandbox fakes; configure
// adjusts the gateway's section.
func start(t *testing.T, configure ...func(*gatewaymod.Config)) *apptest.Harness {
	t.Helper()
	return apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		g := module.SectionOf[*gatewaymod.Config](c.Modules)
		for _, f := range configure {
			f(g)
		}
	}})
}

// fake is the sandbox's fake of a provider, reset for the test.
func fake(t *testing.T, h *apptest.Harness, id ai.ProviderID) *aifake.Kit {
	t.Helper()
	k := apptest.Provided[*gatewaymod.Sandbox](h).Kit(id)
	if k == nil {
		t.Fatalf("the sandbox serves no %s", id)
	}
	k.Reset()
	return k
}

func post(t *testing.T, h *apptest.Harness, path, token string, body any) apptest.Response {
	t.Helper()
	return h.Do(t, "gateway", http.MethodPost, path, token, body)
}

func get(t *testing.T, h *apptest.Harness, path, token string) apptest.Response {
	t.Helper()
	return h.Do(t, "gateway", http.MethodGet, path, token, nil)
}

// usageEvents waits until the organization's usage events list holds n.
func usageEvents(t *testing.T, h *apptest.Harness, token string, n int) []map[string]any {
	t.Helper()
	var out struct {
		Events []map[string]any `json:"events"`
	}
	apptest.Eventually(t, 30*time.Second, "usage events", func() bool {
		res := get(t, h, "/api/usage/events?limit=200", token)
		apptest.Must(t, res, http.StatusOK, "usage events")
		res.JSON(t, &out)
		return len(out.Events) >= n
	})
	return out.Events
}

// budget reads an organization's settled and reserved spend this month
// (micro-cents) from the write side.
func budget(t *testing.T, h *apptest.Harness, org, scope string) (settled, reserved int64) {
	t.Helper()
	_ = h.App.Pool.QueryRow(context.Background(), `SELECT settled, reserved FROM gateway_budgets WHERE organization_id = $1 AND scope = $2
		AND month = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')`, org, scope).Scan(&settled, &reserved)
	return settled, reserved
}

// sse is one server-sent event.
type sse struct {
	Event string
	Data  string
}

// openStream posts a streamed completion and returns the response and a
// reader of its events.
func openStream(t *testing.T, h *apptest.Harness, token string, body map[string]any) (*http.Response, func() (sse, bool)) {
	t.Helper()
	body["stream"] = true
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, h.URLs["gateway"]+"/api/ai/completions", bytes.NewReader(raw))
	if token == "" {
		token = h.APIKey
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	rd := bufio.NewReader(res.Body)
	next := func() (sse, bool) {
		var ev sse
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return ev, false
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "":
				if ev.Data != "" || ev.Event != "" {
					return ev, true
				}
			case strings.HasPrefix(line, "event: "):
				ev.Event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.Data = strings.TrimPrefix(line, "data: ")
			}
		}
	}
	return res, next
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func jsonBody(v any) io.Reader {
	raw, _ := json.Marshal(v)
	return bytes.NewReader(raw)
}
