// Package publishing is the social publishing API's domain (seed 002): posts
// with one state per network target, threads, scheduling, content approval,
// brands with their network connections, media files and shared seeds. Pure
// Go: no I/O, no clock (time is passed in).
//
// Every event of a post or a brand carries the aggregate's whole state after
// it (post, brand): the write model folds to the last one, and the read
// models and reactors need no other source. The event's own members say what
// happened (which target, item and attempt).
package publishing

// SnapshotSchema is the format of the post's and the brand's snapshots
// (the post; BrandSnapshot's record): bump it when either changes shape.
const SnapshotSchema = 1

// Stream types.
const (
	StreamPost  = "publishing.post"
	StreamBrand = "publishing.brand"
	StreamMedia = "publishing.media"
	StreamSeed  = "publishing.seed"
)

// Event types: dotted, past tense, stable strings. All at schema version 1.
const (
	PostCreated     = "publishing.post.created"
	PostEdited      = "publishing.post.edited"
	PostScheduled   = "publishing.post.scheduled"
	PostUnscheduled = "publishing.post.unscheduled"
	PostApproved    = "publishing.post.approved"
	PostRejected    = "publishing.post.rejected"
	PostDeleted     = "publishing.post.deleted"

	TargetClaimed     = "publishing.target.claimed"
	TargetPublished   = "publishing.target.published"
	TargetFailed      = "publishing.target.failed"
	TargetUnconfirmed = "publishing.target.unconfirmed"
	TargetRequeued    = "publishing.target.requeued"

	BrandCreated     = "publishing.brand.created"
	BrandTransferred = "publishing.brand.transferred"
	BrandKitSet      = "publishing.brand.brand_kit_set"

	ConnectionConnected     = "publishing.connection.connected"
	ConnectionRefreshed     = "publishing.connection.refreshed"
	ConnectionRefreshFailed = "publishing.connection.refresh_failed"

	MediaRegistered = "publishing.media.registered"
	SeedShared      = "publishing.seed.shared"
)

// EventTypes are every event type of the publishing context.
var EventTypes = []string{
	PostCreated, PostEdited, PostScheduled, PostUnscheduled, PostApproved, PostRejected, PostDeleted,
	TargetClaimed, TargetPublished, TargetFailed, TargetUnconfirmed, TargetRequeued,
	BrandCreated, BrandTransferred, BrandKitSet,
	ConnectionConnected, ConnectionRefreshed, ConnectionRefreshFailed,
	MediaRegistered, SeedShared,
}

// PostEventTypes are the event types of a post's stream.
var PostEventTypes = []string{
	PostCreated, PostEdited, PostScheduled, PostUnscheduled, PostApproved, PostRejected, PostDeleted,
	TargetClaimed, TargetPublished, TargetFailed, TargetUnconfirmed, TargetRequeued,
}

// BrandEventTypes are the event types of a brand's stream.
var BrandEventTypes = []string{BrandCreated, BrandTransferred, BrandKitSet, ConnectionConnected, ConnectionRefreshed, ConnectionRefreshFailed}

// Networks are seed 002's neutral network names.
var Networks = []string{"network_1", "network_2", "network_3", "network_4", "network_5", "network_6"}

// Timers of a post's stream: at the publish time, claim what is due; at a
// failed target's retry time (one timer per target, "retry:<target id>"),
// claim its next attempt.
const (
	TimerPublish     = "publish"
	TimerKindPublish = "publishing.post.publish"
	TimerKindRetry   = "publishing.post.retry"
)
