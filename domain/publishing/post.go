package publishing

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/platform/backend/domain/event"
)

// Target states.
const (
	StateDraft       = "draft"
	StateScheduled   = "scheduled"
	StatePublishing  = "publishing"  // claimed: an attempt is in flight
	StatePublished   = "published"   // every item is on the network
	StateFailed      = "failed"      // failure fields set
	StateUnconfirmed = "unconfirmed" // sent, no answer: reconciled before any retry
)

// Derived post statuses beyond the target states.
const (
	StatusPartiallyPublished = "partially_published"
	StatusDeleted            = "deleted"
)

// Origins and approval states of a post (content operations).
const (
	OriginManual     = "manual"
	OriginSuggestion = "suggestion"

	ApprovalNone     = "none"
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
)

// Post is one piece of content: its copy (a first item and, for a thread,
// the items that reply to it in order), the network targets it goes to, and
// each target's own state. It is the write model, the command answer and
// the read model's document.
type Post struct {
	PostID   string `json:"id"`
	BrandID  string `json:"brand_id"`
	AuthorID string `json:"author_id"`
	Origin   string `json:"origin"`
	Approval string `json:"approval"`
	// Items are the copy: items[0] is the post, the rest its thread
	// replies, each sent only after the one before it is published.
	Items []Item `json:"items"`
	// ThreadID is the post's id when it is a thread (more than one item).
	ThreadID  *string    `json:"thread_id"`
	Targets   []Target   `json:"targets"`
	PublishAt *time.Time `json:"publish_at"`
	// Status is derived from the targets (Derive).
	Status    string    `json:"status"`
	Deleted   bool      `json:"deleted"`
	Note      *string   `json:"note"` // the reviewer's reason of a rejection
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Item is one post of a thread (or the post itself).
type Item struct {
	Text  string   `json:"text"`
	Media []string `json:"media"` // media ids of the brand's library
	Link  *string  `json:"link"`
}

// Target is one network account a post goes to, with its own state.
type Target struct {
	TargetID string `json:"target_id"`
	Network  string `json:"network"`
	// AccountID and PageID name the account (or page) explicitly; nil lets
	// publishing resolve the brand's connection for the network.
	AccountID *string `json:"account_id"`
	PageID    *string `json:"page_id"`
	State     string  `json:"state"`
	// Attempt counts the attempts at the target's items (every item's job's
	// attempts, as they report).
	Attempt int `json:"attempt"`
	// JobAttempt is how many attempts the current item's job has reported
	// (0 for an item whose job has not started): Attempt counts each once.
	JobAttempt int `json:"job_attempt"`
	// Published holds one entry per item already on the network, in order.
	Published []PublishedItem `json:"published"`
	// PlatformPostID and URL are the first item's, once published.
	PlatformPostID *string `json:"platform_post_id"`
	URL            *string `json:"url"`
	// InFlight is the claim of a publishing or unconfirmed target.
	InFlight *Claim   `json:"in_flight"`
	Failure  *Failure `json:"failure"`
}

// PublishedItem is one item a network accepted.
type PublishedItem struct {
	Item           int       `json:"item"`
	PlatformPostID string    `json:"platform_post_id"`
	URL            *string   `json:"url"`
	ConnectionID   string    `json:"connection_id"`
	PublishedAt    time.Time `json:"published_at"`
}

// Claim is a target's item on its way to the network: the job that
// publishes it (ItemJobID) and its attempt in flight, so an unknown outcome
// is reconciled against the network.
type Claim struct {
	Item int `json:"item"`
	// JobID is the item's job (empty in claims made before jobs: those are
	// reconciled before anything is sent).
	JobID string `json:"job_id"`
	// Attempt and IdempotencyKey are the job's attempt in flight (0 and
	// empty until its job claims one).
	Attempt        int       `json:"attempt"`
	IdempotencyKey string    `json:"idempotency_key"`
	ReplyTo        *string   `json:"reply_to"`
	ClaimedAt      time.Time `json:"claimed_at"`
	// Pending is network-side work an unknown outcome left (a container).
	Pending      *string `json:"pending"`
	ConnectionID *string `json:"connection_id"`
}

// Failure is why a target failed.
type Failure struct {
	Item      int       `json:"item"`
	Attempt   int       `json:"attempt"`
	Code      string    `json:"code"`   // a stable word: rejected, reconnect, rate_limited, provider_fault, not_found, no_connection ...
	Reason    string    `json:"reason"` // a few words of ours, never the network's text
	Retryable bool      `json:"retryable"`
	At        time.Time `json:"at"`
	// RetryAt is when the automatic retry of a retryable network failure
	// (a rate limit, a fault) sends again; nil when none is scheduled (a
	// person retries or reschedules).
	RetryAt *time.Time `json:"retry_at"`
}

// PostEvent is the payload of every post event: what happened to which
// target, item and attempt, and the post after it.
type PostEvent struct {
	PostID   string    `json:"post_id"`
	TargetID string    `json:"target_id,omitempty"`
	Item     *int      `json:"item,omitempty"`
	Attempt  int       `json:"attempt,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	At       time.Time `json:"occurred_at"`
	// Done: a target.published event whose target has every item out.
	Done bool `json:"done,omitempty"`
	Post Post `json:"post"`
}

// LoadPost folds a post's history: every event carries the whole post
// after it, so the state is the last record's post, and only that record is
// decoded. A snapshot (event.SnapshotType, first when present) is the post
// itself (the commands' answer).
func LoadPost(history []event.Recorded) (*Post, error) {
	p := &Post{}
	if len(history) == 0 {
		return p, nil
	}
	r := history[len(history)-1]
	if r.Type == event.SnapshotType {
		if err := json.Unmarshal(r.Payload, p); err != nil {
			return nil, fmt.Errorf("decode the post's snapshot: %w", err)
		}
		return p, nil
	}
	var e PostEvent
	if err := json.Unmarshal(r.Payload, &e); err != nil {
		return nil, fmt.Errorf("decode %s: %w", r.Type, err)
	}
	*p = e.Post
	return p, nil
}

// Exists: the post was created and not deleted.
func (p *Post) Exists() bool { return p.PostID != "" && !p.Deleted }

// State is the post as answered (a copy, so callers cannot change it).
func (p *Post) State() Post {
	out, _ := clone(*p)
	return out
}

func clone[T any](v T) (T, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return v, err
	}
	var out T
	err = json.Unmarshal(b, &out)
	return out, err
}

// Target finds a target by id.
func (p *Post) Target(id string) (*Target, bool) {
	for i := range p.Targets {
		if p.Targets[i].TargetID == id {
			return &p.Targets[i], true
		}
	}
	return nil, false
}

// Derive is the post's status from its targets: draft, scheduled,
// publishing, published, partially_published or failed.
func Derive(p Post) string {
	if p.Deleted {
		return StatusDeleted
	}
	n := len(p.Targets)
	count := map[string]int{}
	started := 0
	for _, t := range p.Targets {
		count[t.State]++
		if len(t.Published) > 0 && t.State != StatePublished {
			started++
		}
	}
	switch {
	case n == 0 || count[StateDraft] == n:
		return StateDraft
	case count[StatePublished] == n:
		return StatePublished
	case count[StatePublishing] > 0 || count[StateUnconfirmed] > 0 || started > 0:
		return StatePublishing
	case count[StateScheduled] > 0 && count[StatePublished] > 0:
		return StatePublishing
	case count[StateScheduled] > 0:
		return StateScheduled
	case count[StatePublished] > 0:
		return StatusPartiallyPublished
	}
	return StateFailed
}
