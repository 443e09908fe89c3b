package whatsapp_test

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
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/message"
	"github.com/platform/backend/providers/message/whatsapp"
	"github.com/platform/backend/providers/message/whatsapp/fake"
	"github.com/platform/backend/providers/outcome"
)

const (
	token   = "EAAG-test-token"
	phoneID = "106540352242922"
)

func start(t *testing.T) (*fake.Server, *whatsapp.Client) {
	t.Helper()
	srv := fake.Start(fake.Options{AccessToken: token, PhoneNumberIDs: []string{phoneID, "999"}})
	t.Cleanup(srv.Close)
	c, err := whatsapp.New(whatsapp.Config{BaseURL: srv.URL(), AccessToken: token, PhoneNumberID: phoneID})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func TestDeliverSpeaksCloudAPIWire(t *testing.T) {
	tests := []struct {
		name  string
		m     message.Outgoing
		path  string
		body  string
		chars int
	}{
		{name: "text", m: message.Outgoing{To: "15551234567", Text: "Your code is 1234 ✓", PreviewURL: true},
			path: "/v21.0/" + phoneID + "/messages", chars: 19,
			body: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"text","text":{"body":"Your code is 1234 ✓","preview_url":true}}`},
		{name: "template from another number", m: message.Outgoing{To: "15551234567", PhoneNumberID: "999", Type: message.TypeTemplate,
			Template: message.Template{Name: "order_ready", Language: "en_US", Components: []json.RawMessage{
				json.RawMessage(`{"type":"body","parameters":[{"type":"text","text":"A-42"}]}`)}}},
			path: "/v21.0/999/messages",
			body: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"template","template":{"name":"order_ready","language":{"code":"en_US"},"components":[{"type":"body","parameters":[{"type":"text","text":"A-42"}]}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := start(t)
			rec, err := c.Deliver(context.Background(), tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if rec.MessageID != fake.MessageID(1) || rec.RequestID != fake.TraceID(1) || rec.Units != (delivery.Units{Messages: 1, Characters: tc.chars}) {
				t.Fatalf("receipt %+v", rec)
			}
			r := srv.Requests()[0]
			if r.Method != "POST" || r.Path != tc.path || r.Header.Get("Authorization") != "Bearer "+token ||
				r.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("request %s %s %v", r.Method, r.Path, r.Header)
			}
			if string(r.Body) != tc.body {
				t.Fatalf("body\n%s\nwant\n%s", r.Body, tc.body)
			}
		})
	}
}

func TestDeliverClassifiesEveryFault(t *testing.T) {
	tests := []struct {
		name           string
		fault          fakekit.Fault
		token          string
		version        string
		timeout        time.Duration
		cancelAfter    time.Duration
		kind           outcome.Kind
		code           string
		status         int
		retryAfter     time.Duration
		maybeDelivered bool
	}{
		{name: "recipient not allowed", fault: fakekit.Fault{Kind: fakekit.Reject}, kind: outcome.Rejected, code: "131030", status: 400},
		{name: "template does not exist", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "132001"}, kind: outcome.Rejected, code: "132001", status: 400},
		{name: "template paused", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "132015"}, kind: outcome.Rejected, code: "132015", status: 400},
		{name: "outside the window", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "131047"}, kind: outcome.Rejected, code: "131047", status: 400},
		{name: "rate limit as a 400 code", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "80007"}, kind: outcome.RateLimited, code: "80007", status: 400},
		{name: "application rate limit", fault: fakekit.Fault{Kind: fakekit.Reject, Code: "4"}, kind: outcome.RateLimited, code: "4", status: 400},
		{name: "expired token", fault: fakekit.Fault{Kind: fakekit.Unauthorized}, kind: outcome.Unauthorized, code: "190", status: 401},
		{name: "wrong token", token: "other", kind: outcome.Unauthorized, code: "190", status: 401},
		{name: "generic provider error", fault: fakekit.Fault{Kind: fakekit.ServerError}, kind: outcome.ProviderFault, code: "131000", status: 500},
		{name: "429 with Retry-After", fault: fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 2 * time.Second},
			kind: outcome.RateLimited, code: "130429", status: 429, retryAfter: 2 * time.Second},
		{name: "hangs past the timeout", fault: fakekit.Fault{Kind: fakekit.Hang}, timeout: 100 * time.Millisecond,
			kind: outcome.ProviderFault, maybeDelivered: true},
		{name: "caller cancels", fault: fakekit.Fault{Kind: fakekit.Hang}, cancelAfter: 50 * time.Millisecond,
			kind: outcome.Canceled, maybeDelivered: true},
		{name: "malformed answer", fault: fakekit.Fault{Kind: fakekit.Malformed}, kind: outcome.ProviderFault, status: 200, maybeDelivered: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.Start(fake.Options{AccessToken: token})
			defer srv.Close()
			srv.Next(1, tc.fault)
			cfg := whatsapp.Config{BaseURL: srv.URL(), AccessToken: token, PhoneNumberID: phoneID, Timeout: tc.timeout}
			if tc.token != "" {
				cfg.AccessToken = tc.token
			}
			c, err := whatsapp.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelAfter > 0 {
				time.AfterFunc(tc.cancelAfter, cancel)
			}
			_, err = c.Deliver(ctx, message.Outgoing{To: "15551234567", Text: "hi"})
			var de *delivery.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not classified", err)
			}
			if de.Timeout != (tc.name == "hangs past the timeout") {
				t.Fatalf("timeout flag %v on %+v", de.Timeout, de)
			}
			if de.Kind != tc.kind || de.Code != tc.code || de.Status != tc.status || de.RetryAfter != tc.retryAfter ||
				de.MaybeDelivered != tc.maybeDelivered || de.Provider != "whatsapp" {
				t.Fatalf("got %+v", de)
			}
			if de.Status != 0 && de.Status != 200 && de.RequestID == "" {
				t.Fatalf("no request id on %+v", de)
			}
			if strings.Contains(err.Error(), "#") || strings.Contains(err.Error(), "Session has expired") {
				t.Fatalf("upstream text leaked: %v", err)
			}
		})
	}
}

func TestDeliverNeedsASendingNumber(t *testing.T) {
	srv := fake.Start(fake.Options{AccessToken: token})
	defer srv.Close()
	c, _ := whatsapp.New(whatsapp.Config{BaseURL: srv.URL(), AccessToken: token})
	if _, err := c.Deliver(context.Background(), message.Outgoing{To: "15551234567", Text: "hi"}); outcome.Of(err) != outcome.Invalid {
		t.Fatalf("got %v", err)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("called without a number")
	}
}

func TestWrongVersionOrNumberIsNotTheMessagesFault(t *testing.T) {
	srv, _ := start(t)
	c, _ := whatsapp.New(whatsapp.Config{BaseURL: srv.URL(), AccessToken: token, PhoneNumberID: "123"})
	_, err := c.Deliver(context.Background(), message.Outgoing{To: "15551234567", Text: "hi"})
	// Code 100 subcode 33: the number does not exist for this token.
	if outcome.Of(err) != outcome.Unauthorized {
		t.Fatalf("unknown number: %v", err)
	}
}

func TestRecordedAnswers(t *testing.T) {
	tests := []struct {
		file      string
		status    int
		id        string
		kind      outcome.Kind
		requestID string
	}{
		{file: "testdata/send_ok.json", status: 200, id: "wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA"},
		{file: "testdata/send_recipient_not_allowed.json", status: 400, kind: outcome.Rejected, requestID: "AxYz9Hq2LmNoPqRsTuVwXyZ"},
		{file: "testdata/send_token_expired.json", status: 401, kind: outcome.Unauthorized, requestID: "BqWe3Rt5YuIoPaSdFgHjKl1"},
		{file: "testdata/send_rate_limited.json", status: 400, kind: outcome.RateLimited, requestID: "CzXc4Vb6NmQwErTyUiOpAs2"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=UTF-8")
				w.WriteHeader(tc.status)
				w.Write(body)
			}))
			defer srv.Close()
			c, _ := whatsapp.New(whatsapp.Config{BaseURL: srv.URL, AccessToken: token, PhoneNumberID: phoneID})
			rec, err := c.Deliver(context.Background(), message.Outgoing{To: "15551234567", Text: "hi"})
			var de *delivery.Error
			errors.As(err, &de)
			if rec.MessageID != tc.id || outcome.Of(err) != tc.kind || (de != nil && de.RequestID != tc.requestID) {
				t.Fatalf("receipt %+v error %+v", rec, de)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for name, cfg := range map[string]whatsapp.Config{
		"no token":        {},
		"bad version":     {AccessToken: "t", Version: "21"},
		"bad number":      {AccessToken: "t", PhoneNumberID: "12a"},
		"relative URL":    {AccessToken: "t", BaseURL: "graph"},
		"credentials":     {AccessToken: "t", BaseURL: "https://u:p@graph.facebook.com"}, // as the gateway's GATEWAY_*_BASE_URL
		"negative time":   {AccessToken: "t", Timeout: -1},
		"version in path": {AccessToken: "t", Version: "v21.0/x"},
	} {
		if _, err := whatsapp.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := whatsapp.New(whatsapp.Config{AccessToken: "t"}); err != nil {
		t.Fatal(err)
	}
}
