// Package social is the kernel of the social network providers: the
// Network interface publishing calls, normalized posts, media, tokens,
// accounts and connections, the one classified error type, readiness, the
// OAuth 2.0 authorization-code flow with PKCE, and the one HTTP caller the
// six adapters share. It imports no adapter and no context.
//
// # The networks
//
// The seeds name the networks neutrally; each maps to a real public API
// spoken by one package beside this one, with a fake server in its fake
// subpackage (a non-test package: publishing's tests and the sandbox run
// them):
//
//	name       package                    API                                    threads       reconcile
//	network_1  providers/social/x         X API v2 POST /2/tweets                reply         Lookup: own timeline, text + parent
//	network_2  providers/social/linkedin  LinkedIn Posts API POST /rest/posts    refused       Lookup: posts by author; duplicate names the post
//	network_3  providers/social/facebook  Graph API POST /{page-id}/feed         refused       Lookup: page feed since the attempt
//	network_4  providers/social/instagram Graph container + media_publish        refused       container status (Pending), Resume, caption
//	network_5  providers/social/tiktok    Content Posting API init + status      refused       publish status (Pending), Resume, video list
//	network_6  providers/social/mastodon  POST /api/v1/statuses                  in_reply_to   Idempotency-Key; Lookup: account statuses
//
// # Exactly once
//
// Publish takes an idempotency key per target and attempt and sends it
// where the network honours one (Mastodon). Every failure is an *Error of
// one Kind. A creating request that was sent and got no usable answer
// (timeout, lost connection, caller gone, a gateway's 502/504, a success we
// could not read) is KindOutcomeUnknown, never a failure: publishing marks
// the target unconfirmed, waits Capabilities.ReconcileAfter, and calls
// Lookup, which reads the network and answers found (the platform id and
// URL), not found (one retry is safe), pending (look again) or failed.
// When the unknown outcome named network-side work (Error.Pending: an
// Instagram container, a TikTok publish id), Lookup reads it directly and a
// retry passes it back as Post.Resume, so the network finishes that work
// instead of starting a second post. A request refused before it was sent
// (pre-flight checks, a canceled context, a refused connection) has Sent
// false and cannot have posted.
//
// Networks without threads refuse a reply before any call
// (ReasonThreadUnsupported): publishing stops the chain at that item.
package social
