package postmark_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email/postmark"
	"github.com/platform/backend/providers/email/postmark/fake"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
)

func TestWebhookVerify(t *testing.T) {
	hook := postmark.Webhook{Username: "postmark", Password: "s3cret"}
	signed := func(w postmark.Webhook) http.Header {
		h := http.Header{}
		w.Sign(h)
		return h
	}
	tests := []struct {
		name   string
		hook   postmark.Webhook
		header http.Header
		want   error
	}{
		{name: "valid", hook: hook, header: signed(hook)},
		{name: "wrong password", hook: hook, header: signed(postmark.Webhook{Username: "postmark", Password: "guess"}), want: delivery.ErrWebhookBadAuth},
		{name: "wrong user", hook: hook, header: signed(postmark.Webhook{Username: "admin", Password: "s3cret"}), want: delivery.ErrWebhookBadAuth},
		{name: "not basic", hook: hook, header: http.Header{"Authorization": {"Bearer s3cret"}}, want: delivery.ErrWebhookBadAuth},
		{name: "missing header", hook: hook, header: http.Header{}, want: delivery.ErrWebhookMissingAuth},
		{name: "receiver without credentials refuses all", hook: postmark.Webhook{}, header: signed(postmark.Webhook{}), want: delivery.ErrWebhookBadAuth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.hook.Verify(tc.header)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParseWebhookRecordedPayloads(t *testing.T) {
	tests := []struct {
		file string
		want []delivery.Event
	}{
		{file: "testdata/webhook_delivery.json", want: []delivery.Event{{Provider: "postmark", MessageID: "0a129aee-e1cd-480d-b08d-4f48548ff48d",
			Recipient: "receiver@example.com", Kind: delivery.Delivered, OccurredAt: time.Date(2026, 3, 14, 13, 27, 1, 61274500, time.UTC)}}},
		{file: "testdata/webhook_bounce.json", want: []delivery.Event{{Provider: "postmark", MessageID: "0a129aee-e1cd-480d-b08d-4f48548ff48d",
			Recipient: "receiver@example.com", Kind: delivery.Bounced, Reason: "HardBounce", OccurredAt: time.Date(2026, 3, 14, 13, 27, 2, 130241900, time.UTC)}}},
		{file: "testdata/webhook_transient.json"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := postmark.ParseWebhook(body)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %+v", got)
			}
			for i := range got {
				if !got[i].OccurredAt.Equal(tc.want[i].OccurredAt) {
					t.Fatalf("time %v, want %v", got[i].OccurredAt, tc.want[i].OccurredAt)
				}
				got[i].OccurredAt = tc.want[i].OccurredAt
				if got[i] != tc.want[i] {
					t.Fatalf("event %+v, want %+v", got[i], tc.want[i])
				}
			}
		})
	}
	for name, body := range map[string]string{"not json": "{", "no time": `{"RecordType":"Delivery","MessageID":"x","Recipient":"a@b.c"}`} {
		if _, err := postmark.ParseWebhook([]byte(body)); !errors.Is(err, delivery.ErrWebhookMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if evs, err := postmark.ParseWebhook([]byte(`{"RecordType":"Open","MessageID":"x"}`)); err != nil || evs != nil {
		t.Errorf("open: %v %v", evs, err)
	}
}

// TestFakeSendsVerifiableWebhooks drives the path the gateway tests use:
// the fake posts a webhook, a receiver verifies and parses it.
func TestFakeSendsVerifiableWebhooks(t *testing.T) {
	hook := postmark.Webhook{Username: "pm", Password: "pw"}
	got := make(chan []delivery.Event, 2)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		evs, err := hook.Receive(r.Header, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		got <- evs
	}))
	defer receiver.Close()
	at := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		creds  postmark.Webhook
		status int
	}{{"right credentials", hook, 200}, {"wrong credentials", postmark.Webhook{Username: "pm", Password: "no"}, 401}} {
		srv := fake.Start(fake.Options{ServerToken: token, Webhook: tc.creds})
		status, err := srv.SendWebhook(context.Background(), receiver.URL, delivery.Event{MessageID: "m1", Recipient: "a@example.com",
			Kind: delivery.Bounced, OccurredAt: at})
		srv.Close()
		if err != nil || status != tc.status {
			t.Fatalf("%s: status %d %v", tc.name, status, err)
		}
	}
	evs := <-got
	if len(evs) != 1 || evs[0].Kind != delivery.Bounced || evs[0].MessageID != "m1" || !evs[0].OccurredAt.Equal(at) {
		t.Fatalf("events %+v", evs)
	}
}

func TestFakeScripts(t *testing.T) {
	srv := fake.Start(fake.Options{ServerToken: token})
	defer srv.Close()
	c, _ := postmark.New(postmark.Config{BaseURL: srv.URL(), ServerToken: token})
	srv.When(fakekit.Naming("bounce@example.com"), fakekit.Fault{Kind: fakekit.Reject})
	srv.Next(2, fakekit.Fault{Kind: fakekit.ServerError})
	m := fullMessage()
	kinds := []outcome.Kind{}
	for range 3 {
		_, err := c.Deliver(context.Background(), m)
		kinds = append(kinds, outcome.Of(err))
	}
	m.Cc[0].Email = "Bounce@example.com"
	_, err := c.Deliver(context.Background(), m)
	kinds = append(kinds, outcome.Of(err))
	want := []outcome.Kind{outcome.ProviderFault, outcome.ProviderFault, "", outcome.Rejected}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("kinds %v, want %v", kinds, want)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[0].Status != 500 || reqs[2].Status != 200 || reqs[3].Status != 422 {
		t.Fatalf("recorded %d", len(reqs))
	}
	// Ids count accepted messages only.
	rec, _ := c.Deliver(context.Background(), fullMessage())
	if rec.MessageID != fake.MessageID(2) {
		t.Fatalf("id %s", rec.MessageID)
	}
}
