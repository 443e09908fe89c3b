package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	httpapi "github.com/platform/backend/http"
)

// TestAPIReferencePagesInABrowser (issue 23): GET /docs of three services
// (status, gateway, contacts) opened in headless Chromium renders the
// service's own OpenAPI document with the vendored Redoc bundle, served by
// the service itself under its strict policy (scripts only from itself, no
// inline script, nothing from elsewhere; Chromium reports no violation):
// the page shows the service's operations by their summaries. The
// screenshots are kept (.stack/artefacts/e2e/docs-<service>.png).
func TestAPIReferencePagesInABrowser(t *testing.T) {
	browser := chromium(t)
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{Services: []string{"identity", "status", "gateway", "contacts"}})
	for service, want := range map[string][]string{
		"status":   {"status service: API reference", "Open an incident", "Statuspage-compatible summary", "/api/incidents"},
		"gateway":  {"gateway service: API reference", "OpenAI-compatible chat completion", "Anthropic-compatible Messages call", "/v1/models"},
		"contacts": {"contacts service: API reference", "Import a CSV file", "/api/pipeline/{pipelineId}/board"},
	} {
		t.Run(service, func(t *testing.T) {
			base := srv.URL(service)
			res := expect(t, "docs page", do(t, Req{Method: http.MethodGet, URL: base + "/docs"}), http.StatusOK)
			csp := res.Header.Get("Content-Security-Policy")
			if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(csp, "default-src 'none'") ||
				!strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "http") ||
				!strings.Contains(csp, "frame-ancestors 'none'") {
				t.Fatalf("docs page headers: %v", res.Header)
			}
			bundle := expect(t, "bundle", do(t, Req{Method: http.MethodGet, URL: base + "/docs/redoc.standalone.js"}), http.StatusOK)
			sum := sha256.Sum256(bundle.Body)
			if hex.EncodeToString(sum[:]) != httpapi.RedocPinned {
				t.Fatalf("the served bundle is not the vendored one")
			}
			page := browse(t, browser, base+"/docs", "docs-"+service, "--virtual-time-budget=15000")
			for _, w := range want {
				if !strings.Contains(page.text, w) {
					t.Errorf("/docs of %s lacks %q:\n%.3000s", service, w, page.text)
				}
			}
		})
	}
}
