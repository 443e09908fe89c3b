package httpcall

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/outcome"
)

func TestKindForStatus(t *testing.T) {
	tests := map[int]outcome.Kind{
		400: outcome.Rejected, 404: outcome.Rejected, 409: outcome.Rejected, 413: outcome.Rejected, 422: outcome.Rejected,
		401: outcome.Unauthorized, 403: outcome.Unauthorized, 429: outcome.RateLimited,
		408: outcome.ProviderFault, 500: outcome.ProviderFault, 502: outcome.ProviderFault, 503: outcome.ProviderFault, 529: outcome.ProviderFault,
		302: outcome.ProviderFault,
	}
	for status, want := range tests {
		if got := KindForStatus(status); got != want {
			t.Fatalf("%d: %s, want %s", status, got, want)
		}
	}
}

func TestSanitizeCode(t *testing.T) {
	tests := map[string]string{
		"rate_limit_exceeded": "rate_limit_exceeded", "RESOURCE_EXHAUSTED": "RESOURCE_EXHAUSTED", "3040": "3040",
		"invalid key sk-abc": "", "<html>": "", string(make([]byte, 65)): "",
	}
	for in, want := range tests {
		if got := SanitizeCode(in); got != want {
			t.Fatalf("%q: %q", in, got)
		}
	}
}

// The caller's deadline, the adapter's own timeout and a dead address are
// three different things to the gateway.
func TestTransportClassification(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // net/http notices a closed connection only once the body is read
		<-r.Context().Done()
	}))
	defer hang.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	tests := []struct {
		name    string
		url     string
		timeout time.Duration
		ctx     time.Duration
		kind    outcome.Kind
		reason  string
	}{
		{"provider too slow", hang.URL, 50 * time.Millisecond, time.Minute, outcome.ProviderFault, ai.ReasonTimeout},
		{"caller deadline first", hang.URL, time.Minute, 50 * time.Millisecond, outcome.Canceled, ai.ReasonCanceled},
		{"nobody listening", deadURL, time.Minute, time.Minute, outcome.ProviderFault, ai.ReasonConnection},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Caller{Protocol: "test", Client: &http.Client{}, Timeout: tc.timeout}
			ctx, cancel := context.WithTimeout(context.Background(), tc.ctx)
			defer cancel()
			var out any
			_, err := c.Do(ctx, Request{Capability: ai.CapChat, URL: tc.url, JSON: map[string]int{}}, &out)
			e, ok := ai.AsError(err)
			if !ok || e.Kind != tc.kind || e.Reason != tc.reason {
				t.Fatalf("%v", err)
			}
			if tc.kind == outcome.Canceled && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatal("the caller's deadline is not the cause")
			}
		})
	}
}

func TestStreamAnsweredWithJSONIsMalformed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[]}`))
	}))
	defer srv.Close()
	c := &Caller{Protocol: "test", Client: &http.Client{}, Timeout: time.Minute}
	_, err := c.Stream(context.Background(), Request{Capability: ai.CapStream, URL: srv.URL, JSON: map[string]int{}})
	if e, ok := ai.AsError(err); !ok || e.Reason != ai.ReasonMalformed {
		t.Fatalf("%v", err)
	}
}

func TestOversizedAnswerIsAProviderFault(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<20)
		for range MaxAnswerBytes/len(chunk) + 1 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := &Caller{Protocol: "test", Client: &http.Client{}, Timeout: time.Minute}
	var out any
	_, err := c.Do(context.Background(), Request{Capability: ai.CapChat, URL: srv.URL, JSON: map[string]int{}}, &out)
	if e, ok := ai.AsError(err); !ok || e.Kind != outcome.ProviderFault || e.Reason != "answer too large" {
		t.Fatalf("%v", err)
	}
}

// The default client follows no redirect: Go would forward x-api-key (not
// a header it knows to be sensitive) to wherever the redirect points.
func TestDefaultClientFollowsNoRedirect(t *testing.T) {
	reached := false
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	defer target.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	conn := Connection{BaseURL: redirect.URL, APIKey: "k"}.WithDefaults("", ai.CapChat)
	c := conn.Caller("test", nil, nil)
	var out any
	_, err := c.Do(context.Background(), Request{Capability: ai.CapChat, URL: redirect.URL,
		Header: http.Header{"X-Api-Key": {"secret"}}, JSON: map[string]int{}}, &out)
	if e, ok := ai.AsError(err); !ok || e.Kind != outcome.ProviderFault || e.Status != http.StatusTemporaryRedirect || reached {
		t.Fatalf("%v reached=%v", err, reached)
	}
}
