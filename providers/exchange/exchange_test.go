package exchange_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/exchange"
	"github.com/platform/backend/providers/outcome"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		header map[string]string
		want   time.Duration
	}{
		"none":             {nil, 0},
		"seconds":          {map[string]string{"Retry-After": "7"}, 7 * time.Second},
		"zero":             {map[string]string{"Retry-After": "0"}, 0},
		"fraction":         {map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		"milliseconds":     {map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, 250 * time.Millisecond},
		"http date":        {map[string]string{"Retry-After": "Sat, 14 Mar 2026 12:00:30 GMT"}, 30 * time.Second},
		"date in the past": {map[string]string{"Retry-After": "Sat, 14 Mar 2026 11:59:00 GMT"}, 0},
		"garbage":          {map[string]string{"Retry-After": "soon"}, 0},
		"negative":         {map[string]string{"Retry-After": "-3"}, 0},
		"absurd":           {map[string]string{"Retry-After": "99999999999999"}, exchange.MaxRetryAfter},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := exchange.RetryAfter(h, now); got != tc.want {
				t.Fatalf("%s, want %s", got, tc.want)
			}
		})
	}
	if got := exchange.RetryAfter(http.Header{"Retry-After": {now.Add(1500 * time.Millisecond).Format(http.TimeFormat)}}, now.Add(-time.Millisecond)); got != 2*time.Second {
		t.Fatalf("a date rounds up to whole seconds: %s", got)
	}
}

// The caller's deadline, the adapter's own timeout, a dead address and a
// connection lost after the request went out are four different things.
func TestTransportClassification(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // net/http notices a closed connection only once the body is read
		<-r.Context().Done()
	}))
	defer hang.Close()
	drop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer drop.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	tests := []struct {
		name           string
		url            string
		timeout, ctx   time.Duration
		kind           outcome.Kind
		timedOut, sent bool
	}{
		{"provider too slow", hang.URL, 50 * time.Millisecond, time.Minute, outcome.ProviderFault, true, true},
		{"caller deadline first", hang.URL, time.Minute, 50 * time.Millisecond, outcome.Canceled, false, true},
		{"nobody listening", deadURL, time.Minute, time.Minute, outcome.ProviderFault, false, false},
		{"connection lost", drop.URL, time.Minute, time.Minute, outcome.ProviderFault, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.ctx)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tc.url, strings.NewReader("{}"))
			_, f := exchange.Exchange{Timeout: tc.timeout}.Do(req)
			if f == nil || f.Kind != tc.kind || f.Timeout != tc.timedOut || f.Sent != tc.sent {
				t.Fatalf("%+v", f)
			}
			if tc.kind == outcome.Canceled && !errors.Is(f.Err, context.DeadlineExceeded) {
				t.Fatal("the caller's deadline is not the cause")
			}
		})
	}
}

func TestAnswerBoundedWithItsRequestID(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_1")
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, strings.Repeat("x", 10))
	}))
	defer srv.Close()
	x := exchange.Exchange{RequestIDHeaders: []string{"Request-Id", "X-Request-Id"}, MaxAnswer: 10}
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	if a, f := x.Do(req); f != nil || a.Status != 418 || a.RequestID != "req_1" || len(a.Body) != 10 {
		t.Fatalf("%+v %+v", a, f)
	}
	x.MaxAnswer = 9
	req, _ = http.NewRequest(http.MethodGet, srv.URL, nil)
	if _, f := x.Do(req); f == nil || !f.TooLarge || f.Kind != outcome.ProviderFault || f.Answer.RequestID != "req_1" {
		t.Fatalf("%+v", f)
	}
}
