package socialtest

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

func testOAuth(t *testing.T, start starter, s Setup) {
	t.Run("authorize URL carries PKCE S256 and state", func(t *testing.T) {
		n, f := start(t)
		flow, err := social.NewAuthFlow()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := n.AuthorizeURL(social.AuthRequest{RedirectURI: RedirectURI, State: flow.State, CodeChallenge: flow.CodeChallenge})
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(raw)
		if err != nil || !strings.HasPrefix(raw, f.URL()) {
			t.Fatalf("authorize URL %q is not at the fake", raw)
		}
		q := u.Query()
		want := map[string]string{
			"response_type": "code", s.ClientIDParam: f.ClientID(), "redirect_uri": RedirectURI, "state": flow.State,
			"code_challenge": social.CodeChallengeS256(flow.CodeVerifier), "code_challenge_method": "S256",
		}
		for k, v := range want {
			if q.Get(k) != v {
				t.Errorf("%s = %q, want %q", k, q.Get(k), v)
			}
		}
		if q.Get("scope") == "" {
			t.Error("no scope requested")
		}
		if _, err := n.AuthorizeURL(social.AuthRequest{RedirectURI: RedirectURI, CodeChallenge: flow.CodeChallenge}); err == nil {
			t.Error("an authorize URL without state was built")
		}
		if _, err := n.AuthorizeURL(social.AuthRequest{RedirectURI: RedirectURI, State: "s", CodeChallenge: "plain"}); err == nil {
			t.Error("an authorize URL without an S256 challenge was built")
		}
	})

	t.Run("connect, publish, refresh", func(t *testing.T) {
		n, f := start(t)
		tok := connect(t, n, f)
		if tok.AccessToken == "" {
			t.Fatal("no access token")
		}
		accounts, err := n.Accounts(ctx(t), tok)
		if err != nil || len(accounts) == 0 {
			t.Fatalf("accounts after connect: %v %v", accounts, err)
		}
		conn := social.Connection{Token: tok, Account: accounts[0]}
		if r := social.ReadinessOf(n.Info(), conn, time.Now()); !r.Ready {
			t.Fatalf("readiness after connect: %+v", r)
		}
		if _, err := n.Publish(ctx(t), conn, s.Post("posted after connecting")); err != nil {
			t.Fatal(err)
		}
		wantCount(t, f, 1)

		// A transient refresh failure is not a revoked grant, and the token
		// still refreshes afterwards.
		for _, fault := range []fakekit.Fault{{Kind: fakekit.ServerError}, {Kind: fakekit.RateLimit}, {Kind: fakekit.Hang}} {
			f.On(s.RefreshOp).Next(1, fault)
			_, err := n.Refresh(ctx(t), tok)
			if k := outcome.Of(err); k == outcome.Unauthorized || err == nil {
				t.Fatalf("refresh under %s: %v (kind %s), want a transient error", fault.Kind, err, k)
			}
		}
		fresh, err := n.Refresh(ctx(t), tok)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.Accounts(ctx(t), fresh); err != nil {
			t.Fatalf("the refreshed token does not work: %v", err)
		}

		f.RevokeGrants()
		_, err = n.Refresh(ctx(t), fresh)
		wantKind(t, err, outcome.Unauthorized, "")
	})

	t.Run("a wrong verifier is refused", func(t *testing.T) {
		n, f := start(t)
		code, _, _ := authorize(t, n, f, true)
		_, err := n.Exchange(ctx(t), social.CodeExchange{Code: code, CodeVerifier: strings.Repeat("a", 43), RedirectURI: RedirectURI})
		wantKind(t, err, outcome.Unauthorized, "")
	})

	t.Run("consent denied", func(t *testing.T) {
		n, f := start(t)
		_, _, back := authorize(t, n, f, false)
		if back.Query().Get("error") != "access_denied" || back.Query().Get("code") != "" {
			t.Fatalf("denied consent redirected to %s", back)
		}
	})
}

// connect runs the whole flow the way publishing will: build the URL, let
// the fake's consent page be approved, take the code from the callback and
// exchange it.
func connect(t *testing.T, n social.Network, f Fake) social.Token {
	t.Helper()
	code, verifier, _ := authorize(t, n, f, true)
	tok, err := n.Exchange(ctx(t), social.CodeExchange{Code: code, CodeVerifier: verifier, RedirectURI: RedirectURI})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

var approveLink = regexp.MustCompile(`id="(approve|deny)" href="([^"]+)"`)

// authorize walks the consent page and answers the callback's code, the
// attempt's verifier and the callback URL.
func authorize(t *testing.T, n social.Network, f Fake, approve bool) (string, string, *url.URL) {
	t.Helper()
	flow, err := social.NewAuthFlow()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := n.AuthorizeURL(social.AuthRequest{RedirectURI: RedirectURI, State: flow.State, CodeChallenge: flow.CodeChallenge})
	if err != nil {
		t.Fatal(err)
	}
	browser := NoRedirects()
	page := get(t, browser, raw)
	choice := "deny"
	if approve {
		choice = "approve"
	}
	var link string
	for _, m := range approveLink.FindAllStringSubmatch(page.body, -1) {
		if m[1] == choice {
			link = strings.ReplaceAll(m[2], "&amp;", "&")
		}
	}
	if link == "" {
		t.Fatalf("the consent page has no %s link: %s", choice, page.body)
	}
	answer := get(t, browser, f.URL()+link)
	if answer.status != http.StatusFound {
		t.Fatalf("consent answered %d, want a redirect", answer.status)
	}
	back, err := url.Parse(answer.location)
	if err != nil || !strings.HasPrefix(answer.location, RedirectURI) {
		t.Fatalf("redirected to %q, want the callback", answer.location)
	}
	if back.Query().Get("state") != flow.State {
		t.Fatalf("callback state %q, want %q", back.Query().Get("state"), flow.State)
	}
	return back.Query().Get("code"), flow.CodeVerifier, back
}

type page struct {
	status   int
	body     string
	location string
}

func get(t *testing.T, c *http.Client, u string) page {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: resp.StatusCode, body: string(body), location: resp.Header.Get("Location")}
}

// NoRedirects is a client that stops at redirects, as a test walking the
// consent pages needs.
func NoRedirects() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
