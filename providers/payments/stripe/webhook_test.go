package stripe_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/platform/backend/providers/payments/stripe"
	"github.com/platform/backend/providers/payments/stripe/fake"
)

const secret = "whsec_test_5f1c0e9a"

// v1 computes a signature from the scheme's definition, independently of
// the package: hex(HMAC-SHA256(secret, "<t>.<body>")).
func v1(secret string, at int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(at, 10) + "." + string(body)))
	return hex.EncodeToString(m.Sum(nil))
}

func TestWebhookSignatures(t *testing.T) {
	body := readTestdata(t, "event_checkout_session_completed.json")
	now := time.Unix(1740413100, 0)
	at := now.Unix()
	good := v1(secret, at, body)
	tests := []struct {
		name   string
		header string
		body   []byte
		want   error
	}{
		{"valid", "t=" + strconv.FormatInt(at, 10) + ",v1=" + good, body, nil},
		{"valid with spaces and a v0", "t=" + strconv.FormatInt(at, 10) + ", v0=abc, v1=" + good, body, nil},
		{"several v1, one right", "t=" + strconv.FormatInt(at, 10) + ",v1=" + v1("whsec_old", at, body) + ",v1=" + good, body, nil},
		{"299 s old", "t=" + strconv.FormatInt(at-299, 10) + ",v1=" + v1(secret, at-299, body), body, nil},
		{"299 s ahead", "t=" + strconv.FormatInt(at+299, 10) + ",v1=" + v1(secret, at+299, body), body, nil},
		{"missing header", "", body, stripe.ErrMissingSignature},
		{"wrong secret", "t=" + strconv.FormatInt(at, 10) + ",v1=" + v1("whsec_other", at, body), body, stripe.ErrBadSignature},
		{"tampered body", "t=" + strconv.FormatInt(at, 10) + ",v1=" + good, append([]byte(" "), body...), stripe.ErrBadSignature},
		{"timestamp changed", "t=" + strconv.FormatInt(at+1, 10) + ",v1=" + good, body, stripe.ErrBadSignature},
		{"only v0", "t=" + strconv.FormatInt(at, 10) + ",v0=" + good, body, stripe.ErrBadSignature},
		{"no timestamp", "v1=" + good, body, stripe.ErrBadSignature},
		{"two timestamps", "t=1,t=" + strconv.FormatInt(at, 10) + ",v1=" + good, body, stripe.ErrBadSignature},
		{"garbage", "not a signature", body, stripe.ErrBadSignature},
		{"stale", "t=" + strconv.FormatInt(at-301, 10) + ",v1=" + v1(secret, at-301, body), body, stripe.ErrStaleTimestamp},
		{"future", "t=" + strconv.FormatInt(at+301, 10) + ",v1=" + v1(secret, at+301, body), body, stripe.ErrStaleTimestamp},
		{"signed but not an event", "t=" + strconv.FormatInt(at, 10) + ",v1=" + v1(secret, at, []byte(`{"id":"x"}`)), []byte(`{"id":"x"}`), stripe.ErrMalformedEvent},
		{"signed but not JSON", "t=" + strconv.FormatInt(at, 10) + ",v1=" + v1(secret, at, []byte(`hello`)), []byte(`hello`), stripe.ErrMalformedEvent},
	}
	v := stripe.WebhookVerifier{Secret: secret, Now: func() time.Time { return now }}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.header != "" {
				h.Set("Stripe-Signature", tc.header)
			}
			ev, err := v.Verify(h, tc.body)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if ev.ID != "evt_1QxKd4LkdIwHu7ixYp8c2Vb6" {
					t.Fatalf("%+v", ev)
				}
				return
			}
			if !errors.Is(err, tc.want) || ev != nil {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			for _, other := range []error{stripe.ErrMissingSignature, stripe.ErrBadSignature, stripe.ErrStaleTimestamp, stripe.ErrMalformedEvent} {
				if other != tc.want && errors.Is(err, other) {
					t.Fatalf("%v also matches %v", err, other)
				}
			}
		})
	}
}

func TestWebhookWithoutASecretFailsClosed(t *testing.T) {
	body := []byte(`{"id":"evt_1","object":"event","type":"x","created":1,"data":{"object":{}}}`)
	h := http.Header{"Stripe-Signature": {stripe.SignWebhook("", body, time.Now())}}
	if _, err := (stripe.WebhookVerifier{}).Verify(h, body); !errors.Is(err, stripe.ErrBadSignature) {
		t.Fatal(err)
	}
}

func TestWebhookEnvelope(t *testing.T) {
	body := readTestdata(t, "event_checkout_session_completed.json")
	now := time.Unix(1740413100, 0)
	h := http.Header{"Stripe-Signature": {stripe.SignWebhook(secret, body, now)}}
	ev, err := stripe.WebhookVerifier{Secret: secret, Now: func() time.Time { return now }}.Verify(h, body)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != "checkout.session.completed" || ev.Account != "acct_1QxJz8PqR5sT2uVw" || !ev.Created.Equal(now) ||
		ev.APIVersion != "2025-02-24.acacia" || ev.Livemode || ev.PreviousAttributes != nil {
		t.Fatalf("%+v", ev)
	}
	obj := decode(t, ev.Object)
	if obj["id"] != "cs_test_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ" || obj["payment_status"] != "paid" {
		t.Fatalf("data.object %v", obj)
	}
}

func TestSignWebhookMatchesTheScheme(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	at := time.Unix(1700000000, 0)
	if got, want := stripe.SignWebhook(secret, body, at), "t=1700000000,v1="+v1(secret, 1700000000, body); got != want {
		t.Fatalf("%s\n%s", got, want)
	}
}

// The fake's webhook reaches a receiver that verifies it like the gateway.
func TestFakeSendsSignedWebhooks(t *testing.T) {
	f := startFake(t, fake.Config{})
	var got *stripe.Event
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := stripe.WebhookVerifier{Secret: fake.DefaultWebhookSecret}.Verify(r.Header, body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		got = ev
	}))
	defer receiver.Close()

	d, err := f.SendWebhook(context.Background(), receiver.URL, fake.WebhookEvent{Type: "customer.updated", Account: "acct_9",
		Object:             map[string]any{"id": "cus_1", "object": "customer", "email": "new@example.com"},
		PreviousAttributes: map[string]any{"email": "old@example.com"}})
	if err != nil || d.Status != 200 {
		t.Fatalf("%v %+v", err, d)
	}
	if got == nil || got.ID != d.EventID || got.Type != "customer.updated" || got.Account != "acct_9" ||
		decode(t, got.PreviousAttributes)["email"] != "old@example.com" || decode(t, got.Object)["id"] != "cus_1" {
		t.Fatalf("%+v", got)
	}

	// Signed with another secret, the receiver refuses it.
	other := startFake(t, fake.Config{WebhookSecret: "whsec_someone_else"})
	if d, err := other.SendWebhook(context.Background(), receiver.URL, fake.WebhookEvent{Type: "x", Object: map[string]any{}}); err != nil || d.Status != 400 {
		t.Fatalf("%v %+v", err, d)
	}
}
