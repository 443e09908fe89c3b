package resend_test

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
	"github.com/platform/backend/providers/email/resend"
	"github.com/platform/backend/providers/email/resend/fake"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
)

const apiKey = "re_test_key"

func fullMessage() email.Outgoing {
	return email.Outgoing{
		From:           email.Address{Name: "Ada Lovelace", Email: "ada@platform.test"},
		To:             []email.Address{{Email: "a@example.com"}, {Name: "Bob", Email: "b@example.com"}},
		Cc:             []email.Address{{Email: "c@example.com"}},
		Bcc:            []email.Address{{Email: "d@example.com"}},
		ReplyTo:        []email.Address{{Email: "support@platform.test"}},
		Subject:        "Welcome",
		HTML:           "<p>Hi</p>",
		Text:           "Hi",
		Tags:           []email.Tag{{Name: "category", Value: "welcome"}, {Name: "app_id", Value: "studio"}},
		MessageStream:  "outbound",
		Attachments:    []email.Attachment{{Filename: "a.pdf", Content: "JVBERg==", ContentType: "application/pdf"}, {Filename: "b.bin", Content: "AAE="}},
		Metadata:       map[string]string{"app_id": "override", "order": "42"},
		Headers:        map[string]string{"X-Campaign": "spring"},
		IdempotencyKey: "gateway:email:req-1",
	}
}

func TestDeliverSpeaksResendWire(t *testing.T) {
	srv := fake.Start(fake.Options{APIKey: apiKey})
	defer srv.Close()
	c, err := resend.New(resend.Config{BaseURL: srv.URL(), APIKey: apiKey})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.Deliver(context.Background(), fullMessage())
	if err != nil {
		t.Fatal(err)
	}
	if rec.MessageID != fake.EmailID(1) || rec.Provider != "resend" || rec.Units.Messages != 4 {
		t.Fatalf("receipt %+v", rec)
	}
	r := srv.Requests()[0]
	if r.Method != "POST" || r.Path != "/emails" || r.Header.Get("Authorization") != "Bearer "+apiKey ||
		r.Header.Get("Idempotency-Key") != "gateway:email:req-1" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request %s %s %v", r.Method, r.Path, r.Header)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"from":     `"Ada Lovelace" <ada@platform.test>`,
		"to":       []string{"a@example.com", `"Bob" <b@example.com>`},
		"cc":       []string{"c@example.com"},
		"bcc":      []string{"d@example.com"},
		"reply_to": []string{"support@platform.test"},
		"subject":  "Welcome",
		"html":     "<p>Hi</p>",
		"text":     "Hi",
		"tags": []map[string]string{{"name": "category", "value": "welcome"}, {"name": "app_id", "value": "override"},
			{"name": "order", "value": "42"}},
		"attachments": []map[string]string{{"filename": "a.pdf", "content": "JVBERg==", "content_type": "application/pdf"},
			{"filename": "b.bin", "content": "AAE="}},
		"headers": map[string]string{"X-Campaign": "spring"},
	}
	for k, v := range want {
		got, _ := json.Marshal(body[k])
		if w, _ := json.Marshal(v); string(got) != string(w) {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
	}
	if len(body) != len(want) {
		t.Errorf("members %v", body)
	}
}

func TestIdempotencyKeyAnswersTheFirstResult(t *testing.T) {
	srv := fake.Start(fake.Options{APIKey: apiKey})
	defer srv.Close()
	c, _ := resend.New(resend.Config{BaseURL: srv.URL(), APIKey: apiKey})
	first, err := c.Deliver(context.Background(), fullMessage())
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Deliver(context.Background(), fullMessage())
	if err != nil || again.MessageID != first.MessageID {
		t.Fatalf("retry gave %+v %v, want %s", again, err, first.MessageID)
	}
	other := fullMessage()
	other.Subject = "Another"
	_, err = c.Deliver(context.Background(), other)
	var de *delivery.Error
	if !errors.As(err, &de) || de.Kind != outcome.Rejected || de.Code != "invalid_idempotent_request" || de.Status != 409 {
		t.Fatalf("reused key: %v", err)
	}
}

func TestDeliverClassifiesEveryFault(t *testing.T) {
	tests := []struct {
		name           string
		fault          fakekit.Fault
		key            string
		timeout        time.Duration
		cancelAfter    time.Duration
		kind           outcome.Kind
		code           string
		status         int
		retryAfter     time.Duration
		maybeDelivered bool
	}{
		{name: "validation error", fault: fakekit.Fault{Kind: fakekit.Reject}, kind: outcome.Rejected, code: "validation_error", status: 422},
		{name: "sender refused", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "invalid_from_address"}, kind: outcome.Rejected,
			code: "invalid_from_address", status: 422},
		{name: "scripted invalid key", fault: fakekit.Fault{Kind: fakekit.Unauthorized}, kind: outcome.Unauthorized,
			code: "invalid_api_key", status: 403},
		{name: "wrong key", key: "re_other", kind: outcome.Unauthorized, code: "invalid_api_key", status: 403},
		{name: "server error", fault: fakekit.Fault{Kind: fakekit.ServerError}, kind: outcome.ProviderFault,
			code: "internal_server_error", status: 500},
		{name: "rate limited", fault: fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 3 * time.Second},
			kind: outcome.RateLimited, code: "rate_limit_exceeded", status: 429, retryAfter: 3 * time.Second},
		{name: "hangs past the timeout", fault: fakekit.Fault{Kind: fakekit.Hang}, timeout: 100 * time.Millisecond,
			kind: outcome.ProviderFault, maybeDelivered: true},
		{name: "caller cancels", fault: fakekit.Fault{Kind: fakekit.Hang}, cancelAfter: 50 * time.Millisecond,
			kind: outcome.Canceled, maybeDelivered: true},
		{name: "malformed answer", fault: fakekit.Fault{Kind: fakekit.Malformed}, kind: outcome.ProviderFault, status: 200,
			maybeDelivered: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.Start(fake.Options{APIKey: apiKey})
			defer srv.Close()
			srv.Next(1, tc.fault)
			cfg := resend.Config{BaseURL: srv.URL(), APIKey: apiKey, Timeout: tc.timeout}
			if tc.key != "" {
				cfg.APIKey = tc.key
			}
			c, err := resend.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelAfter > 0 {
				time.AfterFunc(tc.cancelAfter, cancel)
			}
			_, err = c.Deliver(ctx, fullMessage())
			var de *delivery.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not classified", err)
			}
			if de.Timeout != (tc.name == "hangs past the timeout") {
				t.Fatalf("timeout flag %v on %+v", de.Timeout, de)
			}
			if de.Kind != tc.kind || de.Code != tc.code || de.Status != tc.status || de.RetryAfter != tc.retryAfter ||
				de.MaybeDelivered != tc.maybeDelivered || de.Provider != "resend" {
				t.Fatalf("got %+v", de)
			}
			if strings.Contains(err.Error(), "email@example.com") || strings.Contains(err.Error(), "API key is invalid") {
				t.Fatalf("upstream text leaked: %v", err)
			}
		})
	}
}

func TestRecordedAnswers(t *testing.T) {
	tests := []struct {
		file       string
		status     int
		header     map[string]string
		id         string
		kind       outcome.Kind
		retryAfter time.Duration
	}{
		{file: "testdata/send_ok.json", status: 200, id: "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794"},
		{file: "testdata/send_validation_error.json", status: 422, kind: outcome.Rejected},
		{file: "testdata/send_rate_limited.json", status: 429, kind: outcome.RateLimited, retryAfter: time.Second,
			header: map[string]string{"retry-after": "1", "ratelimit-limit": "2", "ratelimit-remaining": "0", "ratelimit-reset": "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(tc.status)
				w.Write(body)
			}))
			defer srv.Close()
			c, _ := resend.New(resend.Config{BaseURL: srv.URL, APIKey: apiKey})
			rec, err := c.Deliver(context.Background(), fullMessage())
			var de *delivery.Error
			errors.As(err, &de)
			if rec.MessageID != tc.id || outcome.Of(err) != tc.kind || (de != nil && de.RetryAfter != tc.retryAfter) {
				t.Fatalf("receipt %+v error %+v", rec, de)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for name, cfg := range map[string]resend.Config{
		"no key":        {},
		"relative URL":  {BaseURL: "emails", APIKey: "k"},
		"credentials":   {BaseURL: "https://u:p@api.resend.com", APIKey: "k"}, // as the gateway's GATEWAY_*_BASE_URL
		"negative time": {APIKey: "k", Timeout: -time.Second},
	} {
		if _, err := resend.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := resend.New(resend.Config{APIKey: "k"}); err != nil {
		t.Fatal(err)
	}
}
