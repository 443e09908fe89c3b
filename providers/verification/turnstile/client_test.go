package turnstile_test

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/verification/turnstile"
	"github.com/platform/backend/providers/verification/turnstile/fake"
)

func client(t *testing.T, srv *fake.Server, secret string, hostnames ...string) *turnstile.Client {
	t.Helper()
	c, err := turnstile.New(turnstile.Config{BaseURL: srv.URL(), SiteKey: "site", SecretKey: secret, Hostnames: hostnames}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSiteverify: a token verifies once (with its hostname, action and
// cdata), a retry with the same idempotency key answers the same verdict,
// any other use is timeout-or-duplicate; an unknown token is refused; the
// wire carries the form siteverify reads.
func TestSiteverify(t *testing.T) {
	srv := fake.Start(fake.Options{SecretKey: "secret"})
	defer srv.Close()
	c := client(t, srv, "secret")
	ctx := context.Background()
	token := srv.Token("example.com", "chat", "session-1")
	r, err := c.Verify(ctx, token, "203.0.113.9", "key-1")
	if err != nil || !r.Success || r.Hostname != "example.com" || r.Action != "chat" || r.CData != "session-1" || r.ChallengeAt.IsZero() {
		t.Fatalf("verdict %+v, %v", r, err)
	}
	form, _ := url.ParseQuery(string(srv.RequestsOf(fake.OpVerify)[0].Body))
	if form.Get("secret") != "secret" || form.Get("response") != token || form.Get("remoteip") != "203.0.113.9" || form.Get("idempotency_key") != "key-1" {
		t.Fatalf("form %v", form)
	}
	if again, err := c.Verify(ctx, token, "", "key-1"); err != nil || !again.Success {
		t.Fatalf("idempotent retry %+v %v", again, err)
	}
	dup, err := c.Verify(ctx, token, "", "key-2")
	if err != nil || dup.Success || !slices.Contains(dup.Codes, "timeout-or-duplicate") {
		t.Fatalf("second use %+v %v", dup, err)
	}
	bad, err := c.Verify(ctx, "0.forged", "", "")
	if err != nil || bad.Success || !slices.Contains(bad.Codes, "invalid-input-response") {
		t.Fatalf("forged token %+v %v", bad, err)
	}
	if empty, err := c.Verify(ctx, "", "", ""); err != nil || empty.Success {
		t.Fatalf("empty token %+v %v", empty, err)
	}
}

// TestSiteverifyFailures: no verdict is an error (never "verified"): a
// refused secret, the provider's internal-error, a body that does not
// decode, an unreachable provider. A verdict for another site's hostname
// is a refusal.
func TestSiteverifyFailures(t *testing.T) {
	srv := fake.Start(fake.Options{SecretKey: "secret"})
	defer srv.Close()
	ctx := context.Background()
	if _, err := client(t, srv, "wrong").Verify(ctx, srv.Token("h", "a", ""), "", ""); err == nil {
		t.Fatal("a refused secret verified")
	}
	c := client(t, srv, "secret")
	for _, f := range []fakekit.Fault{{Kind: fakekit.ServerError}, {Kind: fakekit.Malformed}} {
		srv.On(fake.OpVerify).Next(1, f)
		if r, err := c.Verify(ctx, srv.Token("h", "a", ""), "", ""); err == nil {
			t.Fatalf("fault %s answered %+v", f.Kind, r)
		}
	}
	other := client(t, srv, "secret", "example.com")
	r, err := other.Verify(ctx, srv.Token("evil.example", "chat", ""), "", "")
	if err != nil || r.Success || !slices.Contains(r.Codes, "hostname-mismatch") {
		t.Fatalf("another site's token: %+v %v", r, err)
	}
	srv.Close()
	if _, err := c.Verify(ctx, "0.x", "", ""); err == nil {
		t.Fatal("an unreachable provider verified")
	}
}
