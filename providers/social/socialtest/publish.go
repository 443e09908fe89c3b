package socialtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
)

func testPublish(t *testing.T, start starter, s Setup) {
	n, f := start(t)
	p := s.Post("Hello from the suite")
	got, err := n.Publish(ctx(t), f.Connection(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == "" || got.URL == "" {
		t.Fatalf("published %+v, want an id and a URL", got)
	}
	wantCount(t, f, 1)
	stored, ok := f.Post(got.ID)
	if !ok {
		t.Fatalf("the fake has no post %s", got.ID)
	}
	if !social.SameText(p.Text, stored.Text) && !social.SameText(p.Text, stored.Title) {
		t.Fatalf("the fake stored text %q, want %q", stored.Text, p.Text)
	}
}

func testCounting(t *testing.T, start starter, s Setup) {
	n1, f1 := start(t)
	n2, f2 := start(t)
	a, err := n1.Publish(ctx(t), f1.Connection(), s.Post("first of two fakes"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := n2.Publish(ctx(t), f2.Connection(), s.Post("first of two fakes"))
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != b.ID {
		t.Fatalf("two fresh fakes gave ids %s and %s, want the same", a.ID, b.ID)
	}
	seen := map[string]bool{a.ID: true}
	for i := range 4 {
		got, err := n1.Publish(ctx(t), f1.Connection(), s.Post(fmt.Sprintf("post number %d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if seen[got.ID] {
			t.Fatalf("id %s given twice", got.ID)
		}
		seen[got.ID] = true
	}
	wantCount(t, f1, 5)
}

func testThread(t *testing.T, start starter, s Setup) {
	n, f := start(t)
	conn := f.Connection()
	if !n.Info().Capabilities.Threads {
		reply := s.Post("a reply")
		reply.ReplyTo = "1234"
		_, err := n.Publish(ctx(t), conn, reply)
		e := wantKind(t, err, outcome.Rejected, social.ReasonThreadUnsupported)
		if e.Sent || len(f.Requests()) != 0 {
			t.Fatalf("a thread reply to a network without threads reached it (%d requests)", len(f.Requests()))
		}
		return
	}
	first, err := n.Publish(ctx(t), conn, s.Post("thread 1/2"))
	if err != nil {
		t.Fatal(err)
	}
	reply := s.Post("thread 2/2")
	reply.ReplyTo = first.ID
	second, err := n.Publish(ctx(t), conn, reply)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := f.Post(second.ID)
	if stored.ReplyTo != first.ID {
		t.Fatalf("the reply was stored replying to %q, want %q", stored.ReplyTo, first.ID)
	}
	found, err := n.Lookup(ctx(t), conn, social.Query{Text: reply.Text, ReplyTo: first.ID, Since: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if found.State != social.LookupFound || found.Post.ID != second.ID {
		t.Fatalf("lookup of the reply: %+v, want %s", found, second.ID)
	}
}

func testFaults(t *testing.T, start starter, s Setup) {
	tests := []struct {
		name   string
		fault  fakekit.Fault
		kind   outcome.Kind
		reason string
	}{
		{"rate limited", fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 30 * time.Second}, outcome.RateLimited, ""},
		{"server error", fakekit.Fault{Kind: fakekit.ServerError}, outcome.ProviderFault, ""},
		{"token expired", fakekit.Fault{Kind: socialfake.TokenExpired}, outcome.Unauthorized, ""},
		{"malformed success", fakekit.Fault{Kind: fakekit.Malformed}, social.KindOutcomeUnknown, social.ReasonMalformed},
	}
	for _, reason := range s.Rejections {
		tests = append(tests, struct {
			name   string
			fault  fakekit.Fault
			kind   outcome.Kind
			reason string
		}{"rejected " + reason, fakekit.Fault{Kind: fakekit.Reject, Code: reason}, outcome.Rejected, reason})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, f := start(t)
			f.On(socialfake.OpPost).Next(1, tc.fault)
			_, err := n.Publish(ctx(t), f.Connection(), s.Post("a post meeting "+tc.name))
			e := wantKind(t, err, tc.kind, tc.reason)
			if !e.Sent {
				t.Fatal("an answered request is reported as not sent")
			}
			if tc.kind == outcome.RateLimited && (e.RetryAfter < 29*time.Second || e.RetryAfter > 30*time.Second+s.WaitGranularity) {
				t.Fatalf("retry after %v, want 30s (to the network's granularity, %v)", e.RetryAfter, s.WaitGranularity)
			}
			if msg := e.Error(); len(msg) > 80 {
				t.Fatalf("message %q is not a few words", msg)
			}
			wantCount(t, f, 0)
		})
	}
}

func testAcceptedThenTimeout(t *testing.T, start starter, s Setup) {
	n, f := start(t)
	conn := f.Connection()
	since := time.Now()
	p := s.Post("accepted while we were not listening")
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.AcceptThenTimeout})
	began := time.Now()
	_, err := n.Publish(ctx(t), conn, p)
	e := wantKind(t, err, social.KindOutcomeUnknown, "")
	if time.Since(began) > 5*time.Second {
		t.Fatalf("the adapter waited %v for a hanging network", time.Since(began))
	}
	wantCount(t, f, 1)
	res, err := n.Lookup(ctx(t), conn, social.Query{Text: p.Text, Since: since, Pending: e.Pending, IdempotencyKey: p.IdempotencyKey})
	if err != nil {
		t.Fatal(err)
	}
	stored := f.Posts()[0]
	if res.State != social.LookupFound || res.Post.ID != stored.ID {
		t.Fatalf("lookup %+v, want found %s", res, stored.ID)
	}
	if res.Post.URL == "" {
		t.Fatal("lookup found no URL")
	}
	wantCount(t, f, 1)
}

func testHang(t *testing.T, start starter, s Setup) {
	n, f := start(t)
	conn := f.Connection()
	p := s.Post("never arrived")
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.Hang})
	_, err := n.Publish(ctx(t), conn, p)
	e := wantKind(t, err, social.KindOutcomeUnknown, "")
	wantCount(t, f, 0)
	res, err := n.Lookup(ctx(t), conn, social.Query{Text: p.Text, Since: time.Now().Add(-time.Minute), Pending: e.Pending})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != social.LookupNotFound {
		t.Fatalf("lookup %+v, want not found", res)
	}
	// Not found means one retry posts it.
	if _, err := n.Publish(ctx(t), conn, p); err != nil {
		t.Fatal(err)
	}
	wantCount(t, f, 1)
}

func testCanceled(t *testing.T, start starter, s Setup) {
	n, f := start(t)
	c, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := n.Publish(c, f.Connection(), s.Post("never sent"))
	e := wantKind(t, err, outcome.Canceled, "")
	if e.Sent {
		t.Fatal("a canceled publish is reported as sent")
	}
	wantCount(t, f, 0)
}

func testExpiredToken(t *testing.T, start starter, s Setup) {
	n, f := start(t)
	conn := f.Connection()
	f.ExpireAccessTokens()
	_, err := n.Publish(ctx(t), conn, s.Post("with an expired token"))
	wantKind(t, err, outcome.Unauthorized, "")
	wantCount(t, f, 0)
}

func testLookup(t *testing.T, start starter, s Setup) {
	n, f := start(t)
	conn := f.Connection()
	res, err := n.Lookup(ctx(t), conn, social.Query{Text: "nothing like this was posted", Since: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != social.LookupNotFound {
		t.Fatalf("lookup %+v, want not found", res)
	}
	f.On(socialfake.OpLookup).Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	_, err = n.Lookup(ctx(t), conn, social.Query{Text: "x", Since: time.Now()})
	wantKind(t, err, outcome.ProviderFault, "")
	if f.PostCount() != 0 {
		t.Fatal("a lookup posted")
	}
}

func testAccounts(t *testing.T, start starter, s Setup) {
	n, f := start(t)
	conn := f.Connection()
	accounts, err := n.Accounts(ctx(t), conn.Token)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range accounts {
		found = found || a.ID == conn.Account.ID
	}
	if !found {
		t.Fatalf("accounts %+v lack %s", accounts, conn.Account.ID)
	}
	info := n.Info()
	now := time.Now()
	if r := social.ReadinessOf(info, conn, now); !r.Ready {
		t.Fatalf("readiness of a full connection: %+v", r)
	}
	partial := conn
	partial.Token.Scopes = nil
	if r := social.ReadinessOf(info, partial, now); r.Ready || len(r.MissingScopes) == 0 {
		t.Fatalf("readiness without scopes: %+v", r)
	}
	if r := social.ReadinessOf(info, social.Connection{}, now); r.Ready || r.Connected {
		t.Fatalf("readiness of nothing: %+v", r)
	}
}
