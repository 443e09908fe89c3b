package whatsapp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/message/whatsapp"
	"github.com/platform/backend/providers/message/whatsapp/fake"
)

const appSecret = "0123456789abcdef0123456789abcdef"

func TestWebhookVerify(t *testing.T) {
	hook := whatsapp.Webhook{AppSecret: appSecret}
	body, err := os.ReadFile("testdata/webhook_statuses.json")
	if err != nil {
		t.Fatal(err)
	}
	signed := func(secret string) http.Header {
		return http.Header{"X-Hub-Signature-256": {whatsapp.Webhook{AppSecret: secret}.Sign(body)}}
	}
	tampered := append([]byte(nil), body...)
	tampered[100] ^= 1
	tests := []struct {
		name   string
		hook   whatsapp.Webhook
		header http.Header
		body   []byte
		want   error
	}{
		{name: "valid", hook: hook, header: signed(appSecret), body: body},
		{name: "wrong secret", hook: hook, header: signed("another-app-secret"), body: body, want: delivery.ErrWebhookBadAuth},
		{name: "tampered body", hook: hook, header: signed(appSecret), body: tampered, want: delivery.ErrWebhookBadAuth},
		{name: "missing header", hook: hook, header: http.Header{}, body: body, want: delivery.ErrWebhookMissingAuth},
		{name: "sha1 only", hook: hook, header: http.Header{"X-Hub-Signature-256": {"sha1=abcdef"}}, body: body, want: delivery.ErrWebhookBadAuth},
		{name: "not hex", hook: hook, header: http.Header{"X-Hub-Signature-256": {"sha256=zz"}}, body: body, want: delivery.ErrWebhookBadAuth},
		{name: "receiver without a secret refuses all", hook: whatsapp.Webhook{}, header: signed(""), body: body, want: delivery.ErrWebhookBadAuth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.hook.Verify(tc.header, tc.body)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParseWebhookRecordedPayloads(t *testing.T) {
	body, _ := os.ReadFile("testdata/webhook_statuses.json")
	evs, err := whatsapp.ParseWebhook(body)
	if err != nil {
		t.Fatal(err)
	}
	want := []delivery.Event{
		{Provider: "whatsapp", MessageID: "wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA", Recipient: "15551234567",
			Kind: delivery.Delivered, OccurredAt: time.Unix(1773494822, 0).UTC()},
		{Provider: "whatsapp", MessageID: "wamid.HBgLMTU1NTk4NzY1NDMVAgARGBIyQjhGNTQ5RkE1QzQ3MTk0NTMA", Recipient: "15559876543",
			Kind: delivery.Failed, Reason: "131047", OccurredAt: time.Unix(1773494830, 0).UTC()},
	}
	if len(evs) != len(want) || evs[0] != want[0] || evs[1] != want[1] {
		t.Fatalf("events %+v", evs)
	}
	inbound, _ := os.ReadFile("testdata/webhook_inbound_message.json")
	if evs, err := whatsapp.ParseWebhook(inbound); err != nil || len(evs) != 0 {
		t.Fatalf("inbound message: %+v %v", evs, err)
	}
	for name, b := range map[string]string{
		"not json":     "[",
		"no timestamp": `{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{"statuses":[{"id":"w","status":"delivered","recipient_id":"1"}]}}]}]}`,
	} {
		if _, err := whatsapp.ParseWebhook([]byte(b)); !errors.Is(err, delivery.ErrWebhookMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSubscribe(t *testing.T) {
	hook := whatsapp.Webhook{AppSecret: appSecret, VerifyToken: "verify-me"}
	q := url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"verify-me"}, "hub.challenge": {"42"}}
	if c, err := hook.Subscribe(q); err != nil || c != "42" {
		t.Fatalf("%q %v", c, err)
	}
	q.Set("hub.verify_token", "guess")
	if _, err := hook.Subscribe(q); !errors.Is(err, whatsapp.ErrSubscription) {
		t.Fatalf("wrong token: %v", err)
	}
}

// TestFakeDrivesAReceiver is the path gateway tests take: the handshake,
// then a signed status notification for a message the fake accepted.
func TestFakeDrivesAReceiver(t *testing.T) {
	hook := whatsapp.Webhook{AppSecret: appSecret, VerifyToken: "verify-me"}
	got := make(chan []delivery.Event, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			challenge, err := hook.Subscribe(r.URL.Query())
			if err != nil {
				http.Error(w, "refused", http.StatusForbidden)
				return
			}
			io.WriteString(w, challenge)
			return
		}
		body, _ := io.ReadAll(r.Body)
		evs, err := hook.Receive(r.Header, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		got <- evs
	}))
	defer receiver.Close()
	if ok, err := fake.Subscribe(context.Background(), receiver.URL, "verify-me"); !ok || err != nil {
		t.Fatalf("handshake %v %v", ok, err)
	}
	if ok, _ := fake.Subscribe(context.Background(), receiver.URL, "wrong"); ok {
		t.Fatal("handshake with a wrong token succeeded")
	}
	srv := fake.Start(fake.Options{AccessToken: token, AppSecret: appSecret})
	defer srv.Close()
	status, err := srv.SendWebhook(context.Background(), receiver.URL, delivery.Event{MessageID: fake.MessageID(1), Recipient: "15551234567",
		Kind: delivery.Failed, Reason: "131026", OccurredAt: time.Unix(1773494822, 0)})
	if err != nil || status != 200 {
		t.Fatalf("status %d %v", status, err)
	}
	evs := <-got
	if len(evs) != 1 || evs[0].Kind != delivery.Failed || evs[0].Reason != "131026" || evs[0].MessageID != fake.MessageID(1) {
		t.Fatalf("events %+v", evs)
	}
}
