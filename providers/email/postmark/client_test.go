package postmark_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email"
	"github.com/platform/backend/providers/email/postmark"
	"github.com/platform/backend/providers/email/postmark/fake"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
)

const token = "server-token"

func fullMessage() email.Outgoing {
	return email.Outgoing{
		From:          email.Address{Name: "Ada Lovelace", Email: "ada@platform.test"},
		To:            []email.Address{{Email: "a@example.com"}, {Name: "Bob", Email: "b@example.com"}},
		Cc:            []email.Address{{Email: "c@example.com"}},
		Bcc:           []email.Address{{Email: "d@example.com"}},
		ReplyTo:       []email.Address{{Email: "support@platform.test"}},
		Subject:       "Welcome",
		HTML:          "<p>Hi</p>",
		Text:          "Hi",
		Tags:          []email.Tag{{Name: "category", Value: "welcome"}, {Name: "app_id", Value: "studio"}},
		MessageStream: "outbound",
		Attachments:   []email.Attachment{{Filename: "a.pdf", Content: "JVBERg==", ContentType: "application/pdf"}, {Filename: "b.bin", Content: "AAE="}},
		Metadata:      map[string]string{"app_id": "override", "order": "42"},
		Headers:       map[string]string{"X-Campaign": "spring"},
	}
}

func TestDeliverSpeaksPostmarkWire(t *testing.T) {
	srv := fake.Start(fake.Options{ServerToken: token})
	defer srv.Close()
	c, err := postmark.New(postmark.Config{BaseURL: srv.URL(), ServerToken: token})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.Deliver(context.Background(), fullMessage())
	if err != nil {
		t.Fatal(err)
	}
	if rec.MessageID != fake.MessageID(1) || rec.Provider != "postmark" || rec.Units.Messages != 4 {
		t.Fatalf("receipt %+v", rec)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/email" || r.Header.Get("X-Postmark-Server-Token") != token ||
		r.Header.Get("Accept") != "application/json" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request %s %s %v", r.Method, r.Path, r.Header)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"From":          `"Ada Lovelace" <ada@platform.test>`,
		"To":            `a@example.com, "Bob" <b@example.com>`,
		"Cc":            "c@example.com",
		"Bcc":           "d@example.com",
		"ReplyTo":       "support@platform.test",
		"Subject":       "Welcome",
		"HtmlBody":      "<p>Hi</p>",
		"TextBody":      "Hi",
		"Tag":           "welcome",
		"MessageStream": "outbound",
		"Metadata":      map[string]any{"category": "welcome", "app_id": "override", "order": "42"},
		"Headers":       []any{map[string]any{"Name": "X-Campaign", "Value": "spring"}},
		"Attachments": []any{
			map[string]any{"Name": "a.pdf", "Content": "JVBERg==", "ContentType": "application/pdf"},
			map[string]any{"Name": "b.bin", "Content": "AAE=", "ContentType": "application/octet-stream"},
		},
	}
	for k, v := range want {
		if got, _ := json.Marshal(body[k]); string(got) != mustJSON(v) {
			t.Errorf("%s = %s, want %s", k, got, mustJSON(v))
		}
	}
	if len(body) != len(want) {
		t.Errorf("members %v", body)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDeliverClassifiesEveryFault(t *testing.T) {
	tests := []struct {
		name           string
		fault          fakekit.Fault
		token          string
		timeout        time.Duration
		callerCtx      func() (context.Context, context.CancelFunc)
		kind           outcome.Kind
		code           string
		status         int
		retryAfter     time.Duration
		maybeDelivered bool
		cause          error
	}{
		{name: "inactive recipient", fault: fakekit.Fault{Kind: fakekit.Reject}, kind: outcome.Rejected, code: "406", status: 422},
		{name: "invalid email", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "300"}, kind: outcome.Rejected, code: "300", status: 422},
		{name: "sender not confirmed", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "401"}, kind: outcome.Rejected, code: "401", status: 422},
		{name: "account may not send", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "413"}, kind: outcome.Unauthorized, code: "413", status: 422},
		{name: "unknown 422 code", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "1234"}, kind: outcome.Rejected, code: "1234", status: 422},
		{name: "scripted 401", fault: fakekit.Fault{Kind: fakekit.Unauthorized}, kind: outcome.Unauthorized, code: "10", status: 401},
		{name: "wrong token", token: "stale", kind: outcome.Unauthorized, code: "10", status: 401},
		{name: "server error", fault: fakekit.Fault{Kind: fakekit.ServerError}, kind: outcome.ProviderFault, status: 500},
		{name: "rate limited", fault: fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 7 * time.Second},
			kind: outcome.RateLimited, code: "429", status: 429, retryAfter: 7 * time.Second},
		{name: "hangs past the timeout", fault: fakekit.Fault{Kind: fakekit.Hang}, timeout: 100 * time.Millisecond,
			kind: outcome.ProviderFault, maybeDelivered: true},
		{name: "caller cancels", fault: fakekit.Fault{Kind: fakekit.Hang}, kind: outcome.Canceled, maybeDelivered: true,
			callerCtx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(50*time.Millisecond, cancel)
				return ctx, cancel
			}, cause: context.Canceled},
		{name: "caller deadline before the provider timeout", fault: fakekit.Fault{Kind: fakekit.Hang}, kind: outcome.Canceled,
			maybeDelivered: true, callerCtx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			}, cause: context.DeadlineExceeded},
		{name: "malformed answer", fault: fakekit.Fault{Kind: fakekit.Malformed}, kind: outcome.ProviderFault, status: 200, maybeDelivered: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.Start(fake.Options{ServerToken: token})
			defer srv.Close()
			srv.Next(1, tc.fault)
			cfg := postmark.Config{BaseURL: srv.URL(), ServerToken: token, Timeout: tc.timeout}
			if tc.token != "" {
				cfg.ServerToken = tc.token
			}
			c, err := postmark.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.callerCtx != nil {
				ctx, cancel = tc.callerCtx()
			}
			defer cancel()
			_, err = c.Deliver(ctx, fullMessage())
			var de *delivery.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not classified", err)
			}
			if de.Timeout != (tc.name == "hangs past the timeout") {
				t.Fatalf("timeout flag %v on %+v", de.Timeout, de)
			}
			if de.Kind != tc.kind || de.Code != tc.code || de.Status != tc.status || de.RetryAfter != tc.retryAfter ||
				de.MaybeDelivered != tc.maybeDelivered || de.Provider != "postmark" {
				t.Fatalf("got %+v", de)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Fatalf("%v does not wrap %v", err, tc.cause)
			}
			if strings.Contains(err.Error(), "Found inactive") || strings.Contains(err.Error(), "valid Server token") {
				t.Fatalf("upstream text leaked: %v", err)
			}
		})
	}
}

func TestDeliverRefusesAnInvalidMessageWithoutACall(t *testing.T) {
	srv := fake.Start(fake.Options{ServerToken: token})
	defer srv.Close()
	c, _ := postmark.New(postmark.Config{BaseURL: srv.URL(), ServerToken: token})
	m := fullMessage()
	m.To = nil
	if _, err := c.Deliver(context.Background(), m); outcome.Of(err) != outcome.Invalid {
		t.Fatalf("got %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d calls", n)
	}
}

func TestDeliverUnreachableProvider(t *testing.T) {
	srv := fake.Start(fake.Options{ServerToken: token})
	url := srv.URL()
	srv.Close()
	c, _ := postmark.New(postmark.Config{BaseURL: url, ServerToken: token})
	_, err := c.Deliver(context.Background(), fullMessage())
	var de *delivery.Error
	if !errors.As(err, &de) || de.Kind != outcome.ProviderFault || de.MaybeDelivered {
		t.Fatalf("got %+v", err)
	}
}

// TestRecordedAnswers replays answers shaped like Postmark's own.
func TestRecordedAnswers(t *testing.T) {
	tests := []struct {
		file   string
		status int
		id     string
		kind   outcome.Kind
	}{
		{file: "testdata/send_ok.json", status: 200, id: "0a129aee-e1cd-480d-b08d-4f48548ff48d"},
		{file: "testdata/send_inactive_recipient.json", status: 422, kind: outcome.Rejected},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(tc.status)
				w.Write(body)
			}))
			defer srv.Close()
			c, _ := postmark.New(postmark.Config{BaseURL: srv.URL, ServerToken: token})
			rec, err := c.Deliver(context.Background(), fullMessage())
			if rec.MessageID != tc.id || outcome.Of(err) != tc.kind {
				t.Fatalf("receipt %+v error %v", rec, err)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := map[string]postmark.Config{
		"no token":      {},
		"relative URL":  {BaseURL: "/email", ServerToken: "t"},
		"other scheme":  {BaseURL: "ftp://x", ServerToken: "t"},
		"credentials":   {BaseURL: "https://u:p@api.postmarkapp.com", ServerToken: "t"}, // as the gateway's GATEWAY_*_BASE_URL
		"negative time": {ServerToken: "t", Timeout: -1},
	}
	for name, cfg := range tests {
		if _, err := postmark.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := (postmark.Config{ServerToken: "t"}).WithDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
}
