// Package publishing is the publishing API's read model: brands, posts with
// their targets, the content-operations audit trail (queue, daily, events
// and deck are queries over it), media files and shared seeds.
package publishing

import (
	"encoding/json"

	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection.
const Name = "publishing"

// Projection builds the publishing read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"publishing"} }
func (Projection) Tables() []string {
	return []string{"publishing_brands", "publishing_posts", "publishing_targets", "publishing_content_events",
		"publishing_media", "publishing_seeds"}
}

func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{publishing_brands}} (
			brand_id text PRIMARY KEY, organization_id text NOT NULL, home_organization_id text NOT NULL, name text NOT NULL,
			doc jsonb NOT NULL, version bigint NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)
			WITH (fillfactor = 70)`,
		`CREATE INDEX IF NOT EXISTS {{publishing_brands}}_org ON {{publishing_brands}} (organization_id, created_at)`,
		`CREATE TABLE IF NOT EXISTS {{publishing_posts}} (
			post_id text PRIMARY KEY, brand_id text NOT NULL, status text NOT NULL, approval text NOT NULL, origin text NOT NULL,
			thread_id text, publish_at timestamptz, deleted boolean NOT NULL, doc jsonb NOT NULL, version bigint NOT NULL,
			created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL) WITH (fillfactor = 70)`,
		`CREATE INDEX IF NOT EXISTS {{publishing_posts}}_brand ON {{publishing_posts}} (brand_id, created_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{publishing_targets}} (
			post_id text NOT NULL, target_id text NOT NULL, state text NOT NULL, attempt int NOT NULL,
			claimed_at timestamptz, updated_at timestamptz NOT NULL, PRIMARY KEY (post_id, target_id)) WITH (fillfactor = 70)`,
		`CREATE TABLE IF NOT EXISTS {{publishing_content_events}} (
			event_id uuid PRIMARY KEY, post_id text NOT NULL, brand_id text NOT NULL, event_type text NOT NULL,
			kind text NOT NULL, target_id text, actor_id text NOT NULL, reason text, occurred_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{publishing_content_events}}_brand ON {{publishing_content_events}} (brand_id, occurred_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{publishing_media}} (
			media_id text PRIMARY KEY, brand_id text, organization_id text NOT NULL, filename text NOT NULL, content_type text NOT NULL,
			size bigint NOT NULL, object_key text NOT NULL, created_by text NOT NULL, created_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{publishing_media}}_org ON {{publishing_media}} (organization_id, created_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{publishing_seeds}} (
			seed_id text PRIMARY KEY, brand_id text NOT NULL, doc jsonb NOT NULL, shared_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{publishing_seeds}}_brand ON {{publishing_seeds}} (brand_id, shared_at DESC)`,
	}
}

func (p Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each publishing event does to the read model.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = func() projections.Reducers {
	r := projections.Reducers{
		domain.MediaRegistered: projections.On(mediaRegistered),
		domain.SeedShared:      projections.On(seedShared),
	}
	for _, t := range domain.PostEventTypes {
		r[t] = projections.On(postChanged)
	}
	for _, t := range domain.BrandEventTypes {
		r[t] = brandChanged
	}
	// The items' jobs show on the posts (the publisher records their
	// outcomes there), not here.
	return r.Ignoring(domjobs.EventTypes("publishing")...)
}()

// contentKinds name what an event was for the content-ops rollups.
var contentKinds = map[string]string{
	domain.PostCreated: "created", domain.PostEdited: "edited", domain.PostScheduled: "scheduled",
	domain.PostUnscheduled: "unscheduled", domain.PostApproved: "approved", domain.PostRejected: "rejected",
	domain.PostDeleted: "deleted", domain.TargetClaimed: "claimed", domain.TargetPublished: "published",
	domain.TargetFailed: "failed", domain.TargetUnconfirmed: "unconfirmed", domain.TargetRequeued: "requeued",
}

var eventColumns = []string{"event_id", "post_id", "brand_id", "event_type", "kind", "target_id", "actor_id", "reason", "occurred_at"}

func postChanged(e eventstore.Event, p domain.PostEvent) ([]projections.Statement, error) {
	doc, err := json.Marshal(p.Post)
	if err != nil {
		return nil, err
	}
	post := p.Post
	out := []projections.Statement{
		projections.Exec(`INSERT INTO {{publishing_posts}} (post_id, brand_id, status, approval, origin, thread_id, publish_at, deleted,
			doc, version, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)
			ON CONFLICT (post_id) DO UPDATE SET status=EXCLUDED.status, approval=EXCLUDED.approval, thread_id=EXCLUDED.thread_id,
			publish_at=EXCLUDED.publish_at, deleted=EXCLUDED.deleted, doc=EXCLUDED.doc, version=EXCLUDED.version, updated_at=EXCLUDED.updated_at
			WHERE {{publishing_posts}}.version < EXCLUDED.version`,
			post.PostID, post.BrandID, post.Status, post.Approval, post.Origin, post.ThreadID, post.PublishAt, post.Deleted,
			doc, e.StreamVersion, post.CreatedAt, post.UpdatedAt),
		projections.Exec(`DELETE FROM {{publishing_targets}} WHERE post_id=$1`, post.PostID),
	}
	for _, t := range post.Targets {
		var claimed any
		if t.InFlight != nil {
			claimed = t.InFlight.ClaimedAt
		}
		out = append(out, projections.Exec(`INSERT INTO {{publishing_targets}} (post_id, target_id, state, attempt, claimed_at, updated_at)
			VALUES ($1,$2,$3,$4,$5,$6)`, post.PostID, t.TargetID, t.State, t.Attempt, claimed, post.UpdatedAt))
	}
	var target, reason any
	if p.TargetID != "" {
		target = p.TargetID
	}
	if p.Reason != "" {
		reason = p.Reason
	}
	out = append(out, projections.Insert("{{publishing_content_events}}", eventColumns, "ON CONFLICT DO NOTHING",
		e.ID, post.PostID, post.BrandID, e.Type, contentKinds[e.Type], target, e.Actor.ID, reason, p.At))
	return out, nil
}

func brandChanged(e eventstore.Event) ([]projections.Statement, error) {
	_, b, err := domain.DecodeBrandEvent(e.Payload)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{publishing_brands}} (brand_id, organization_id, home_organization_id,
		name, doc, version, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)
		ON CONFLICT (brand_id) DO UPDATE SET organization_id=EXCLUDED.organization_id, name=EXCLUDED.name, doc=EXCLUDED.doc,
		version=EXCLUDED.version, updated_at=EXCLUDED.updated_at WHERE {{publishing_brands}}.version < EXCLUDED.version`,
		b.BrandID, b.OrganizationID, b.HomeOrganizationID, b.Name, doc, e.StreamVersion, b.CreatedAt, b.UpdatedAt)}, nil
}

func mediaRegistered(e eventstore.Event, p domain.MediaRegisteredV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`INSERT INTO {{publishing_media}} (media_id, brand_id, organization_id, filename,
		content_type, size, object_key, created_by, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT (media_id) DO NOTHING`,
		p.MediaID, p.BrandID, e.OrganizationID, p.Filename, p.ContentType, p.Size, p.Key, p.CreatedBy, p.At)}, nil
}

func seedShared(_ eventstore.Event, p domain.SeedSharedV1) ([]projections.Statement, error) {
	doc, err := json.Marshal(p.Seed)
	if err != nil {
		return nil, err
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{publishing_seeds}} (seed_id, brand_id, doc, shared_at)
		VALUES ($1,$2,$3,$4) ON CONFLICT (seed_id) DO NOTHING`, p.Seed.SeedID, p.Seed.BrandID, doc, p.Seed.SharedAt)}, nil
}
