package social

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/outcome"
)

func TestClassifyStatus(t *testing.T) {
	c := NewCaller("network_1", HTTPConfig{})
	tests := []struct {
		status  int
		creates bool
		kind    outcome.Kind
		reason  string
	}{
		{401, true, outcome.Unauthorized, ReasonTokenInvalid},
		{403, true, outcome.Rejected, ReasonForbidden},
		{413, true, outcome.Rejected, ReasonMediaInvalid},
		{422, true, outcome.Rejected, ReasonInvalid},
		{429, true, outcome.RateLimited, ReasonRateLimited},
		{500, true, outcome.ProviderFault, ReasonServerError},
		{503, true, outcome.ProviderFault, ReasonServerError},
		{502, true, KindOutcomeUnknown, ReasonGatewayTimeout},
		{504, true, KindOutcomeUnknown, ReasonGatewayTimeout},
		{502, false, outcome.ProviderFault, ReasonServerError},
		{504, false, outcome.ProviderFault, ReasonServerError},
		{302, true, outcome.ProviderFault, ReasonMalformed},
	}
	for _, tc := range tests {
		e := c.ClassifyStatus(Request{Op: "publish", Creates: tc.creates}, &Answer{Status: tc.status, Header: http.Header{}})
		if e == nil || e.Kind != tc.kind || e.Reason != tc.reason {
			t.Errorf("%d (creates %v): %v, want %s %s", tc.status, tc.creates, e, tc.kind, tc.reason)
		}
	}
}

// TestLostAnswers: a request that creates is unknown once it was sent and
// no usable answer came; before it was sent, or for any other request, the
// same failure is a fault or a cancellation.
func TestLostAnswers(t *testing.T) {
	// The server notices a client gone only once the body was read.
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer hang.Close()
	defer close(stop)
	drop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer drop.Close()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":"` + strings.Repeat("9", 4096) + `"}`))
	}))
	defer huge.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<html>oops</html>"))
	}))
	defer html.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()

	c := NewCaller("network_1", HTTPConfig{Timeout: 200 * time.Millisecond, MaxAnswerBytes: 1024})
	tests := []struct {
		name    string
		url     string
		creates bool
		ctx     func() (context.Context, context.CancelFunc)
		kind    outcome.Kind
		reason  string
		sent    bool
	}{
		{"hang, creating", hang.URL, true, nil, KindOutcomeUnknown, ReasonTimeout, true},
		{"hang, reading", hang.URL, false, nil, outcome.ProviderFault, ReasonTimeout, true},
		{"caller deadline while hanging, creating", hang.URL, true, deadline(50 * time.Millisecond), KindOutcomeUnknown, ReasonCanceled, true},
		{"caller deadline while hanging, reading", hang.URL, false, deadline(50 * time.Millisecond), outcome.Canceled, ReasonCanceled, true},
		{"connection dropped, creating", drop.URL, true, nil, KindOutcomeUnknown, ReasonConnection, true},
		{"connection dropped, reading", drop.URL, false, nil, outcome.ProviderFault, ReasonConnection, true},
		{"refused: nothing was sent", closed, true, nil, outcome.ProviderFault, ReasonConnection, false},
		{"canceled before", hang.URL, true, canceled, outcome.Canceled, ReasonCanceled, false},
		{"answer too large, creating", huge.URL, true, nil, KindOutcomeUnknown, ReasonTooLarge, true},
		{"answer not JSON, creating", html.URL, true, nil, KindOutcomeUnknown, ReasonMalformed, true},
		{"answer not JSON, reading", html.URL, false, nil, outcome.ProviderFault, ReasonMalformed, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			var out map[string]any
			_, err := c.DoJSON(ctx, Request{Op: "publish", Method: http.MethodPost, URL: tc.url, JSON: map[string]string{"text": "secret words"}, Creates: tc.creates}, nil, &out)
			e, ok := AsError(err)
			if !ok || e.Kind != tc.kind || e.Reason != tc.reason || e.Sent != tc.sent {
				t.Fatalf("%v (%+v), want %s %s sent=%v", err, e, tc.kind, tc.reason, tc.sent)
			}
			if strings.Contains(e.Error(), "secret") || strings.Contains(e.Error(), "127.0.0.1") {
				t.Fatalf("message %q leaks", e.Error())
			}
		})
	}
}

func deadline(d time.Duration) func() (context.Context, context.CancelFunc) {
	return func() (context.Context, context.CancelFunc) { return context.WithTimeout(context.Background(), d) }
}

func canceled() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx, cancel
}

func TestErrorMessageIsAFewWords(t *testing.T) {
	e := &Error{Network: "network_4", Op: "publish", Kind: KindOutcomeUnknown, Reason: ReasonGatewayTimeout}
	if got := e.Error(); got != "network_4 publish: outcome unknown (gateway timeout)" {
		t.Fatalf("message %q", got)
	}
}

// TestValidateURLRefusesCredentials: a network's configured endpoints
// (PUBLISHING_NETWORK_<n>_BASE_URL points them all at one address) include
// the authorize URL and the posts' web URL, which browsers are sent to:
// credentials in them are refused, and the refusal does not quote them.
func TestValidateURLRefusesCredentials(t *testing.T) {
	if err := ValidateURL("network_1", "authorize URL", "https://example.test/oauth"); err != nil {
		t.Fatal(err)
	}
	err := ValidateURL("network_1", "authorize URL", "https://app:s3cret@example.test/oauth")
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "network_1: authorize URL") {
		t.Fatalf("credentials: %v", err)
	}
}
