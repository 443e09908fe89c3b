package publishing

import (
	"context"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	domain "github.com/platform/backend/domain/publishing"
)

// QueueItem is one actionable content item: its approval state, publish
// status, times, failure details and the safe actions it supports.
type QueueItem struct {
	ContentID     string          `json:"content_id"`
	BrandID       string          `json:"brand_id"`
	Preview       string          `json:"preview"`
	Origin        string          `json:"origin"`
	Approval      string          `json:"approval"`
	PublishStatus string          `json:"publish_status"`
	PublishAt     *time.Time      `json:"publish_at"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	Failures      []TargetFailure `json:"failures"`
	Actions       []string        `json:"actions"`
}

// TargetFailure is one failed target of an item.
type TargetFailure struct {
	TargetID  string    `json:"target_id"`
	Network   string    `json:"network"`
	Item      int       `json:"item"`
	Code      string    `json:"code"`
	Reason    string    `json:"reason"`
	Retryable bool      `json:"retryable"`
	At        time.Time `json:"at"`
	// RetryAt is the automatic retry's time (a rate limit or a network
	// fault), nil when none is scheduled.
	RetryAt *time.Time `json:"retry_at"`
}

// Safe actions of content operations.
const (
	ActionApprove    = "approve"
	ActionReject     = "reject"
	ActionEdit       = "edit"
	ActionReschedule = "reschedule"
	ActionRetry      = "retry"
)

// ActionNames are every safe action (the HTTP enum).
var ActionNames = []string{ActionApprove, ActionReject, ActionEdit, ActionReschedule, ActionRetry}

// Actions are what a post supports now (the same rules its commands check).
func Actions(p domain.Post) []string {
	out := []string{}
	if p.Approval == domain.ApprovalPending {
		out = append(out, ActionApprove, ActionReject)
	}
	failed, queued := false, false
	for _, t := range p.Targets {
		failed = failed || t.State == domain.StateFailed
		queued = queued || t.State == domain.StateScheduled
	}
	if p.Status == domain.StateDraft {
		out = append(out, ActionEdit)
	}
	if (failed || queued) && p.Approval != domain.ApprovalPending && p.Approval != domain.ApprovalRejected {
		out = append(out, ActionReschedule)
	}
	if failed {
		out = append(out, ActionRetry)
	}
	return out
}

// ItemOf is a post as a content item.
func ItemOf(p domain.Post) QueueItem {
	preview := ""
	if len(p.Items) > 0 {
		preview = p.Items[0].Text
	}
	if utf8.RuneCountInString(preview) > 140 {
		preview = string([]rune(preview)[:140])
	}
	it := QueueItem{ContentID: p.PostID, BrandID: p.BrandID, Preview: preview, Origin: p.Origin, Approval: p.Approval,
		PublishStatus: p.Status, PublishAt: p.PublishAt, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		Failures: []TargetFailure{}, Actions: Actions(p)}
	for _, t := range p.Targets {
		if t.State == domain.StateFailed && t.Failure != nil {
			f := t.Failure
			it.Failures = append(it.Failures, TargetFailure{TargetID: t.TargetID, Network: t.Network, Item: f.Item, Code: f.Code,
				Reason: f.Reason, Retryable: f.Retryable, At: f.At, RetryAt: f.RetryAt})
		}
	}
	return it
}

// Queue lists actionable items: awaiting approval, drafts, queued, failed
// or partly published, most recently changed first.
func (q *Queries) Queue(ctx context.Context, org, brandID string, limit int) ([]QueueItem, error) {
	posts, err := docs[domain.Post](ctx, q, `SELECT p.doc`+ownPosts+` AND ($2 = '' OR p.brand_id = $2)
		AND (p.approval = 'pending' OR p.status IN ('draft', 'scheduled', 'failed', 'partially_published', 'publishing'))
		AND p.approval <> 'rejected' ORDER BY p.updated_at DESC, p.post_id LIMIT $3`, org, brandID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]QueueItem, len(posts))
	for i, p := range posts {
		out[i] = ItemOf(p)
	}
	return out, nil
}

// DeckItem is an item awaiting approval with its freshness.
type DeckItem struct {
	QueueItem
	AgeHours  float64 `json:"age_hours"`
	Freshness float64 `json:"freshness"` // 1 new, halving every 24 hours
}

// Deck ranks the suggestion drafts awaiting approval, freshest first.
func (q *Queries) Deck(ctx context.Context, org, brandID string, now time.Time, limit int) ([]DeckItem, error) {
	posts, err := docs[domain.Post](ctx, q, `SELECT p.doc`+ownPosts+` AND ($2 = '' OR p.brand_id = $2) AND p.approval = 'pending'
		ORDER BY p.created_at DESC, p.post_id LIMIT $3`, org, brandID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]DeckItem, len(posts))
	for i, p := range posts {
		age := max(now.Sub(p.CreatedAt).Hours(), 0)
		out[i] = DeckItem{QueueItem: ItemOf(p), AgeHours: math.Round(age*100) / 100, Freshness: math.Round(math.Pow(0.5, age/24)*1000) / 1000}
	}
	slices.SortStableFunc(out, func(a, b DeckItem) int {
		switch {
		case a.Freshness > b.Freshness:
			return -1
		case a.Freshness < b.Freshness:
			return 1
		}
		return 0
	})
	return out, nil
}

// ContentEvent is one audit event of content operations.
type ContentEvent struct {
	EventID    string    `json:"event_id"`
	ContentID  string    `json:"content_id"`
	BrandID    string    `json:"brand_id"`
	Type       string    `json:"type"`
	Kind       string    `json:"kind"`
	TargetID   *string   `json:"target_id"`
	ActorID    string    `json:"actor_id"`
	Reason     *string   `json:"reason"`
	OccurredAt time.Time `json:"occurred_at"`
}

// Events lists the audit events of the organization's content, newest
// first (of one item when contentID is set).
func (q *Queries) Events(ctx context.Context, org, brandID, contentID string, limit int) ([]ContentEvent, error) {
	s, err := q.sql(ctx, `SELECT e.event_id::text, e.post_id, e.brand_id, e.event_type, e.kind, e.target_id, e.actor_id, e.reason, e.occurred_at
		FROM {{publishing_content_events}} e JOIN {{publishing_brands}} b ON b.brand_id = e.brand_id
		WHERE b.organization_id = $1 AND ($2 = '' OR e.brand_id = $2) AND ($3 = '' OR e.post_id = $3)
		ORDER BY e.occurred_at DESC, e.event_id DESC LIMIT $4`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, s, org, brandID, contentID, limit)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ContentEvent])
	if out == nil {
		out = []ContentEvent{}
	}
	return out, err
}

// Day is one day's content activity, bucketed by each activity's own time:
// a later publish adds to its day and leaves the day it was scheduled on.
type Day struct {
	Date      string `json:"date"`
	Created   int    `json:"created"`
	Approved  int    `json:"approved"`
	Rejected  int    `json:"rejected"`
	Scheduled int    `json:"scheduled"`
	Published int    `json:"published"`
	Failed    int    `json:"failed"`
}

// Daily rolls the last days of activity up per UTC day, newest first.
func (q *Queries) Daily(ctx context.Context, org, brandID string, since time.Time) ([]Day, error) {
	s, err := q.sql(ctx, `SELECT to_char(date_trunc('day', e.occurred_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
		count(*) FILTER (WHERE kind = 'created'), count(*) FILTER (WHERE kind = 'approved'), count(*) FILTER (WHERE kind = 'rejected'),
		count(*) FILTER (WHERE kind = 'scheduled'), count(*) FILTER (WHERE kind = 'published'), count(*) FILTER (WHERE kind = 'failed')
		FROM {{publishing_content_events}} e JOIN {{publishing_brands}} b ON b.brand_id = e.brand_id
		WHERE b.organization_id = $1 AND ($2 = '' OR e.brand_id = $2) AND e.occurred_at >= $3
		GROUP BY day ORDER BY day DESC`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, s, org, brandID, since)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Day])
	if out == nil {
		out = []Day{}
	}
	return out, err
}
