package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/platform/backend/domain/errs"
)

func problemCount(t *testing.T, status string) float64 {
	t.Helper()
	var m dto.Metric
	if err := problemsTotal.WithLabelValues(status).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestClientClosedRequest: an error that comes from the client abandoning the
// request is no server error: no ERROR line, not counted as a 5xx, answered
// 499 (nobody reads it). A real failure is still an ERROR and a 500.
func TestClientClosedRequest(t *testing.T) {
	canceled := func() *http.Request {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return httptest.NewRequest(http.MethodGet, "/api/incidents", nil).WithContext(ctx)
	}
	for _, c := range []struct {
		name      string
		req       *http.Request
		err       error
		status    int
		errorLine bool
	}{
		{"canceled query", canceled(), fmt.Errorf("list incidents: %w", context.Canceled), StatusClientClosedRequest, false},
		{"canceled dependency", canceled(), errs.Unavailable("identity validation is unavailable", fmt.Errorf("post: %w", context.Canceled)), StatusClientClosedRequest, false},
		{"gone client, other cause", canceled(), errors.New("conn closed"), StatusClientClosedRequest, false},
		{"server failure", httptest.NewRequest(http.MethodGet, "/api/incidents", nil), errors.New("boom"), http.StatusInternalServerError, true},
		// Our own cancellation (not the client's) is still a server error.
		{"canceled by the server", httptest.NewRequest(http.MethodGet, "/api/incidents", nil), context.Canceled, http.StatusInternalServerError, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			before5xx := problemCount(t, "500")
			before499 := problemCount(t, "499")
			rec := httptest.NewRecorder()
			WriteError(rec, c.req, log, c.err)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d", rec.Code, c.status)
			}
			if got := strings.Contains(logs.String(), "level=ERROR"); got != c.errorLine {
				t.Fatalf("ERROR line %v, want %v: %s", got, c.errorLine, logs.String())
			}
			if got := strings.Contains(logs.String(), "level=WARN"); got && !c.errorLine {
				t.Fatalf("a client that left is logged as a warning: %s", logs.String())
			}
			d5xx := problemCount(t, "500") - before5xx
			d499 := problemCount(t, "499") - before499
			if c.errorLine && (d5xx != 1 || d499 != 0) || !c.errorLine && (d5xx != 0 || d499 != 1) {
				t.Fatalf("counted 500 +%v, 499 +%v", d5xx, d499)
			}
			var p Problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Status != c.status || p.Title == "" {
				t.Fatalf("body %s (%v)", rec.Body, err)
			}
			if c.status == StatusClientClosedRequest && (p.Code != "client_closed_request" || !strings.Contains(logs.String(), "client closed request")) {
				t.Fatalf("code %q, logs %s", p.Code, logs.String())
			}
		})
	}
}
