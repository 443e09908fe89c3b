package socialfake

import "github.com/platform/backend/providers/fakekit"

// The operations a fault can be scripted for: f.On(OpPost).Next(1, fault).
const (
	// OpPost is the call that creates a post: X POST /2/tweets, LinkedIn
	// POST /rest/posts, Facebook POST /{page}/feed and /photos, Instagram
	// media_publish, TikTok publish init, Mastodon POST /api/v1/statuses.
	OpPost = "post"
	// OpMedia: media uploads and Instagram containers.
	OpMedia = "media"
	// OpStatus: processing polls (Instagram container, TikTok publish,
	// Mastodon media).
	OpStatus = "status"
	// OpLookup: reading our own recent posts.
	OpLookup = "lookup"
	// OpAccounts: who the token is, which pages it manages.
	OpAccounts = "accounts"
	// OpToken: the OAuth token endpoint (exchange and refresh).
	OpToken = "token"
	// OpAuthorize: the OAuth authorize endpoint (recorded; no faults).
	OpAuthorize = "authorize"
)

// The faults only social networks have, besides fakekit's (RateLimit with
// the network's reset header, ServerError, Reject with Fault.Code one of
// the Reason* values, default duplicate, Unauthorized as an invalid token,
// AcceptThenTimeout on OpPost, Hang, Malformed: a proxy's page, nothing
// stored).
const (
	// TokenExpired: the network's expired-token answer, whatever the token.
	TokenExpired fakekit.Kind = "token_expired"
	// GrantRevoked (OpToken): invalid_grant, as if the user removed the app.
	GrantRevoked fakekit.Kind = "grant_revoked"
)
