package social

import (
	"context"
	"io"
	"time"
)

// Post is one item to publish: a standalone post or a thread reply.
type Post struct {
	Text string
	// Title is used where the network has one (TikTok photo posts); empty
	// elsewhere.
	Title string
	// Link is a URL the network renders as a link preview (Facebook link,
	// LinkedIn article); networks without one keep it in the text.
	Link  string
	Media []Media
	// ReplyTo is the platform post id of the previous item of a thread.
	ReplyTo string
	// Visibility is the audience; empty means the network's default
	// (public).
	Visibility Visibility
	// IdempotencyKey is unique per target and attempt. Networks that honour
	// one (Capabilities.IdempotencyKey) get it on the wire; for the others
	// it is ignored and Lookup reconciles.
	IdempotencyKey string
	// Resume is Error.Pending of an earlier attempt whose Lookup found
	// nothing: the network-side work to finish instead of starting again
	// (an Instagram container is published at most once, so retrying with
	// it cannot post twice). Networks without such work ignore it.
	Resume string
}

// MediaKind is an image or a video.
type MediaKind string

const (
	MediaImage MediaKind = "image"
	MediaVideo MediaKind = "video"
)

// Media is one attachment. Networks that pull media (MediaByURL) read URL;
// networks that take uploads read Open.
type Media struct {
	Kind        MediaKind
	URL         string // public or presigned URL the network fetches
	ContentType string // image/jpeg, video/mp4 ...
	AltText     string
	// Open returns the bytes for networks that take uploads. Size bounds
	// what is read (0: the adapter's limit).
	Open func(ctx context.Context) (io.ReadCloser, error)
	Size int64
}

// Visibility is a post's audience.
type Visibility string

const (
	VisibilityPublic    Visibility = "public"
	VisibilityUnlisted  Visibility = "unlisted"  // public but off timelines (Mastodon)
	VisibilityFollowers Visibility = "followers" // followers or connections only
	VisibilityPrivate   Visibility = "private"   // the author only (TikTok SELF_ONLY)
)

// Published is a post the network accepted.
type Published struct {
	ID  string // the platform post id; a thread's next item replies to it
	URL string // where people see it; empty when the network gave none
	// CreatedAt is the network's time of the post when it said.
	CreatedAt time.Time
}

// Query asks Lookup for a post of ours that may exist after an unknown
// outcome.
type Query struct {
	// Text is exactly what Publish was given (compared with SameText).
	Text string
	// ReplyTo narrows to replies of that platform post id.
	ReplyTo string
	// Since is when the attempt started; posts older than that (minus a
	// little clock skew) are not ours.
	Since time.Time
	// Pending is Error.Pending of the unknown outcome, when it had one.
	Pending string
	// IdempotencyKey is the attempt's key.
	IdempotencyKey string
}

// LookupState is what Lookup found.
type LookupState string

const (
	// LookupFound: the post exists; Post holds its id and URL.
	LookupFound LookupState = "found"
	// LookupNotFound: the network has no such post; one retry posts it.
	LookupNotFound LookupState = "not_found"
	// LookupPending: the network is still processing it (a container, a
	// TikTok publish): look again later, do not retry.
	LookupPending LookupState = "pending"
	// LookupFailed: the network processed it and refused it; Err says why
	// (a outcome.Rejected error). Nothing was posted.
	LookupFailed LookupState = "failed"
)

// LookupResult is Lookup's answer.
type LookupResult struct {
	State LookupState
	Post  Published
	Err   *Error
}
