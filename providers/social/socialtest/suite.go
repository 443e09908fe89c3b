// Package socialtest is the conformance suite every social network adapter
// runs against its fake over real HTTP: publishing and counting, threads,
// every fault kind classified, accepted-then-timeout reported as unknown and
// then found by Lookup, cancellation, expired tokens, accounts, readiness,
// and the whole OAuth connect flow (authorize URL with S256 PKCE, consent,
// code exchange, refresh, transient versus revoked refresh errors). Each
// adapter's own tests add what is particular to its wire.
package socialtest

import (
	"context"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
)

// Fake is what the suite needs of a network fake: socialfake.Core's
// methods (every fake embeds it) and a ready connection.
type Fake interface {
	On(op string) *fakekit.Script
	Reset()
	PostCount() int
	Posts() []socialfake.Post
	Post(id string) (socialfake.Post, bool)
	RequestsOf(op string) []fakekit.Request
	Requests() []fakekit.Request
	RevokeGrants()
	ExpireAccessTokens()
	SetConsent(socialfake.Consent)
	ClientID() string
	URL() string
	Close()
	// Connection is a connected account with every scope.
	Connection() social.Connection
}

// Setup tells the suite how to run one network.
type Setup struct {
	// Start runs a fresh fake and an adapter configured at it (see
	// Timeout). The suite closes the fake.
	Start func(t *testing.T) (social.Network, Fake)
	// Post is a valid post for the network holding text (with media where
	// the network needs it).
	Post func(text string) social.Post
	// ClientIDParam names the client id in the authorize URL (default
	// client_id; TikTok: client_key).
	ClientIDParam string
	// RefreshOp is the fake operation a Refresh calls (default OpToken;
	// networks whose tokens do not expire verify the token instead).
	RefreshOp string
	// Rejections are the content refusals the network has (default:
	// duplicate, too long, media invalid; TikTok and Mastodon have no
	// duplicate rule).
	Rejections []string
	// WaitGranularity is how coarsely the network announces a rate limit's
	// end (default a second; Meta says minutes).
	WaitGranularity time.Duration
}

// Timeout is the adapter timeout Start must configure: the suite's hanging
// faults wait it out.
const Timeout = 300 * time.Millisecond

// RedirectURI is the callback the connect flow uses.
const RedirectURI = "https://app.example.test/api/integrations/callback"

// Run runs the suite.
func Run(t *testing.T, s Setup) {
	if s.ClientIDParam == "" {
		s.ClientIDParam = "client_id"
	}
	if s.RefreshOp == "" {
		s.RefreshOp = socialfake.OpToken
	}
	if s.Rejections == nil {
		s.Rejections = []string{socialfake.ReasonDuplicate, socialfake.ReasonTooLong, socialfake.ReasonMediaInvalid}
	}
	if s.WaitGranularity == 0 {
		s.WaitGranularity = time.Second
	}
	start := func(t *testing.T) (social.Network, Fake) {
		t.Helper()
		n, f := s.Start(t)
		t.Cleanup(f.Close)
		return n, f
	}
	t.Run("publish", func(t *testing.T) { testPublish(t, start, s) })
	t.Run("ids are deterministic and every post is counted", func(t *testing.T) { testCounting(t, start, s) })
	t.Run("thread", func(t *testing.T) { testThread(t, start, s) })
	t.Run("faults", func(t *testing.T) { testFaults(t, start, s) })
	t.Run("accepted then timeout is unknown and found by lookup", func(t *testing.T) { testAcceptedThenTimeout(t, start, s) })
	t.Run("hang is unknown and lookup finds nothing", func(t *testing.T) { testHang(t, start, s) })
	t.Run("canceled before sending", func(t *testing.T) { testCanceled(t, start, s) })
	t.Run("expired token", func(t *testing.T) { testExpiredToken(t, start, s) })
	t.Run("lookup", func(t *testing.T) { testLookup(t, start, s) })
	t.Run("accounts and readiness", func(t *testing.T) { testAccounts(t, start, s) })
	t.Run("oauth", func(t *testing.T) { testOAuth(t, start, s) })
}

type starter func(t *testing.T) (social.Network, Fake)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// wantKind fails unless err is an *Error of kind (and reason, when given).
func wantKind(t *testing.T, err error, kind outcome.Kind, reason string) *social.Error {
	t.Helper()
	e, ok := social.AsError(err)
	if !ok {
		t.Fatalf("error %v (%T), want a *social.Error of kind %s", err, err, kind)
	}
	if e.Kind != kind || (reason != "" && e.Reason != reason) {
		t.Fatalf("error %q: kind %s reason %s, want %s %s", e, e.Kind, e.Reason, kind, reason)
	}
	return e
}

func wantCount(t *testing.T, f Fake, n int) {
	t.Helper()
	if got := f.PostCount(); got != n {
		t.Fatalf("the fake counted %d posts, want %d", got, n)
	}
}
