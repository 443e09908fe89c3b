package resend_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email/resend"
	"github.com/platform/backend/providers/email/resend/fake"
)

const secret = "whsec_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="

// TestVerifyRecordedSignature checks a signature computed outside this
// package (testdata, by an independent HMAC) with a decoy signature first.
func TestVerifyRecordedSignature(t *testing.T) {
	var vec map[string]string
	raw, _ := os.ReadFile("testdata/webhook_bounced.signature.json")
	if err := json.Unmarshal(raw, &vec); err != nil {
		t.Fatal(err)
	}
	body, _ := os.ReadFile("testdata/" + vec["body_file"])
	h := http.Header{}
	for _, k := range []string{"svix-id", "svix-timestamp", "svix-signature"} {
		h.Set(k, vec[k])
	}
	at := time.Unix(1773494822, 0).Add(90 * time.Second)
	evs, err := resend.Webhook{Secret: vec["secret"], Now: func() time.Time { return at }}.Receive(h, body)
	if err != nil {
		t.Fatal(err)
	}
	want := delivery.Event{Provider: "resend", MessageID: "56761188-7520-42d8-8898-ff6fc54ce618", Recipient: "missing@example.com",
		Kind: delivery.Bounced, Reason: "Permanent", OccurredAt: time.Date(2026, 3, 14, 13, 27, 2, 126e6, time.UTC)}
	if len(evs) != 1 || evs[0] != want {
		t.Fatalf("events %+v", evs)
	}
}

func TestWebhookVerify(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	hook := resend.Webhook{Secret: secret, Now: func() time.Time { return now }}
	body := fake.WebhookBody(delivery.Event{MessageID: "m1", Recipient: "a@example.com", Kind: delivery.Delivered, OccurredAt: now})
	signed := func(secret string, at time.Time) http.Header {
		return resend.Webhook{Secret: secret}.Sign("msg_1", at, body)
	}
	without := func(name string) http.Header {
		h := signed(secret, now)
		h.Del(name)
		return h
	}
	tampered := append([]byte(nil), body...)
	tampered[len(tampered)-3] ^= 1
	tests := []struct {
		name   string
		header http.Header
		body   []byte
		want   error
	}{
		{name: "valid", header: signed(secret, now), body: body},
		{name: "valid within tolerance", header: signed(secret, now.Add(-4*time.Minute)), body: body},
		{name: "secret without prefix", header: signed("AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=", now), body: body},
		{name: "wrong secret", header: signed("whsec_"+"c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ==", now), body: body, want: delivery.ErrWebhookBadAuth},
		{name: "tampered body", header: signed(secret, now), body: tampered, want: delivery.ErrWebhookBadAuth},
		{name: "stale timestamp", header: signed(secret, now.Add(-6*time.Minute)), body: body, want: delivery.ErrWebhookStale},
		{name: "timestamp from the future", header: signed(secret, now.Add(6*time.Minute)), body: body, want: delivery.ErrWebhookStale},
		{name: "missing signature", header: without("svix-signature"), body: body, want: delivery.ErrWebhookMissingAuth},
		{name: "missing id", header: without("svix-id"), body: body, want: delivery.ErrWebhookMissingAuth},
		{name: "missing timestamp", header: without("svix-timestamp"), body: body, want: delivery.ErrWebhookMissingAuth},
		{name: "unreadable timestamp", header: func() http.Header { h := signed(secret, now); h.Set("svix-timestamp", "soon"); return h }(),
			body: body, want: delivery.ErrWebhookMalformed},
		{name: "only another version", header: func() http.Header { h := signed(secret, now); h.Set("svix-signature", "v2,abc"); return h }(),
			body: body, want: delivery.ErrWebhookBadAuth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := hook.Verify(tc.header, tc.body)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	if err := (resend.Webhook{Secret: "whsec_%%%", Now: hook.Now}).Verify(signed(secret, now), body); !errors.Is(err, delivery.ErrWebhookBadAuth) {
		t.Fatalf("unusable secret: %v", err)
	}
}

func TestParseWebhookRecordedPayloads(t *testing.T) {
	tests := []struct {
		file       string
		recipients []string
		kind       delivery.EventKind
	}{
		{file: "testdata/webhook_bounced.json", recipients: []string{"missing@example.com"}, kind: delivery.Bounced},
		{file: "testdata/webhook_delivered.json", recipients: []string{"a@example.com", "b@example.com"}, kind: delivery.Delivered},
		{file: "testdata/webhook_opened.json"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			body, _ := os.ReadFile(tc.file)
			evs, err := resend.ParseWebhook(body)
			if err != nil || len(evs) != len(tc.recipients) {
				t.Fatalf("events %+v %v", evs, err)
			}
			for i, ev := range evs {
				if ev.Recipient != tc.recipients[i] || ev.Kind != tc.kind || ev.MessageID != "56761188-7520-42d8-8898-ff6fc54ce618" || ev.OccurredAt.IsZero() {
					t.Fatalf("event %+v", ev)
				}
			}
		})
	}
	if _, err := resend.ParseWebhook([]byte(`{"type":"email.delivered","data":{}}`)); !errors.Is(err, delivery.ErrWebhookMalformed) {
		t.Fatalf("incomplete event: %v", err)
	}
}

func TestFakeSendsVerifiableWebhooks(t *testing.T) {
	got := make(chan []delivery.Event, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		evs, err := resend.Webhook{Secret: secret}.Receive(r.Header, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		got <- evs
	}))
	defer receiver.Close()
	srv := fake.Start(fake.Options{APIKey: apiKey, WebhookSecret: secret})
	defer srv.Close()
	status, err := srv.SendWebhook(context.Background(), receiver.URL, delivery.Event{MessageID: "m1", Recipient: "a@example.com",
		Kind: delivery.Failed, OccurredAt: time.Now()})
	if err != nil || status != 200 {
		t.Fatalf("status %d %v", status, err)
	}
	if evs := <-got; len(evs) != 1 || evs[0].Kind != delivery.Failed || evs[0].MessageID != "m1" {
		t.Fatalf("events %+v", evs)
	}
	wrong := fake.Start(fake.Options{APIKey: apiKey, WebhookSecret: "whsec_c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ=="})
	defer wrong.Close()
	if status, _ := wrong.SendWebhook(context.Background(), receiver.URL, delivery.Event{MessageID: "m1", Recipient: "a@example.com",
		Kind: delivery.Delivered, OccurredAt: time.Now()}); status != http.StatusUnauthorized {
		t.Fatalf("wrongly signed webhook got %d", status)
	}
}
