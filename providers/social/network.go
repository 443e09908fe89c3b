package social

import (
	"context"
	"time"
)

// The neutral names of the six networks (seed 002), in the order of the
// package documentation's table.
const (
	Network1 = "network_1" // X
	Network2 = "network_2" // LinkedIn
	Network3 = "network_3" // Facebook Pages
	Network4 = "network_4" // Instagram
	Network5 = "network_5" // TikTok
	Network6 = "network_6" // Mastodon
)

// Names lists the six networks in order.
func Names() []string {
	return []string{Network1, Network2, Network3, Network4, Network5, Network6}
}

// Network is one social network's adapter: the OAuth connect flow, the
// accounts a connection can publish as, publishing and reconciling. Every
// error it returns is an *Error.
type Network interface {
	Authorizer

	// Info describes the network: its name, scopes and capabilities.
	Info() Info

	// Accounts lists what the token can publish as (the user itself, or
	// the pages it manages): publishing stores the chosen one in the
	// Connection.
	Accounts(ctx context.Context, tok Token) ([]Account, error)

	// Publish sends one post (or one thread reply) and answers its platform
	// id and URL. A pre-flight refusal (outcome.Rejected, Sent false) is known
	// before any call. After KindOutcomeUnknown, call Lookup, never Publish.
	Publish(ctx context.Context, conn Connection, post Post) (Published, error)

	// Lookup reads the network's state to settle an unknown outcome: is
	// there a post of ours matching the query? It never writes.
	Lookup(ctx context.Context, conn Connection, q Query) (LookupResult, error)
}

// Authorizer is the OAuth 2.0 authorization-code flow with PKCE (S256) and
// state, in the network's dialect.
type Authorizer interface {
	// AuthorizeURL is where the user's browser goes to grant access.
	AuthorizeURL(r AuthRequest) (string, error)
	// Exchange trades the code the callback received for a token.
	Exchange(ctx context.Context, e CodeExchange) (Token, error)
	// Refresh renews a token before it expires. outcome.Unauthorized means the
	// grant is gone (the user must connect again); any other kind is
	// transient and leaves the connection as it was.
	Refresh(ctx context.Context, tok Token) (Token, error)
}

// Info is what publishing and the integrations list know about a network
// without calling it.
type Info struct {
	Name    string // network_1..network_6
	Product string // the real network, for operators ("X", "LinkedIn" ...)
	// Scopes are requested by AuthorizeURL when the request names none.
	Scopes []string
	// RequiredScopes must all be granted for publishing and reconciling.
	RequiredScopes []string
	// NeedsAccountChoice: the user must pick an account after connecting
	// (Facebook pages); elsewhere the connecting user is the account.
	NeedsAccountChoice bool
	Capabilities       Capabilities
}

// Capabilities say what a post may hold. Pre-flight checks (CheckPost) use
// them, so a post the network cannot take is refused before any call.
type Capabilities struct {
	// Threads: a post may reply to an earlier platform post id of ours.
	// Networks without threads refuse a reply with ReasonThreadUnsupported
	// before any call; publishing then stops the chain at that item.
	Threads bool
	// MaxTextRunes bounds the text (counted in runes; the network's own
	// counting, such as X's weighted characters, may still refuse).
	MaxTextRunes int
	// TextRequired / MediaRequired: a post without them is refused.
	TextRequired  bool
	MediaRequired bool
	// MaxMedia is how many media items one post may carry (0: none).
	MaxMedia int
	// MediaKinds are the kinds accepted.
	MediaKinds []MediaKind
	// MediaByURL: the network pulls media from Media.URL (a public or
	// presigned URL); otherwise the adapter uploads Media.Open's bytes.
	MediaByURL bool
	// Visibilities are the audiences a post may choose; the first is the
	// default.
	Visibilities []Visibility
	// IdempotencyKey: the network honours Post.IdempotencyKey, so a repeat
	// of the same key returns the first post instead of a second one.
	IdempotencyKey bool
	// ReconcileAfter is how long after an unknown outcome Lookup can be
	// trusted to see the post (timelines and moderation lag).
	ReconcileAfter time.Duration
}
