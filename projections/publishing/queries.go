package publishing

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/projections"
)

// Queries reads the active generation of the publishing read model. Every
// read is scoped to the brands the caller's organization has now (a
// transferred brand's content follows it).
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader) *Queries {
	return &Queries{pool: pool, reader: reader}
}

func (q *Queries) sql(ctx context.Context, s string) (string, error) {
	return q.reader.SQL(ctx, Projection{}, s)
}

// docs runs a query whose single column is a JSON document.
func docs[T any](ctx context.Context, q *Queries, sql string, args ...any) ([]T, error) {
	s, err := q.sql(ctx, sql)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, s, args...)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) {
		var raw []byte
		var v T
		if err := r.Scan(&raw); err != nil {
			return v, err
		}
		return v, json.Unmarshal(raw, &v)
	})
	if out == nil {
		out = []T{}
	}
	return out, err
}

// Brands are the organization's brands, oldest first.
func (q *Queries) Brands(ctx context.Context, org string) ([]domain.Brand, error) {
	return docs[domain.Brand](ctx, q, `SELECT doc FROM {{publishing_brands}} WHERE organization_id=$1 ORDER BY created_at, brand_id LIMIT 500`, org)
}

// Brand is one of the organization's brands.
func (q *Queries) Brand(ctx context.Context, org, brandID string) (domain.Brand, error) {
	list, err := docs[domain.Brand](ctx, q, `SELECT doc FROM {{publishing_brands}} WHERE organization_id=$1 AND brand_id=$2`, org, brandID)
	if err != nil {
		return domain.Brand{}, err
	}
	if len(list) == 0 {
		return domain.Brand{}, errs.NotFound("brand")
	}
	return list[0], nil
}

// PostFilter selects posts.
type PostFilter struct {
	BrandID  string
	ThreadID string
	Status   string
	Limit    int
}

const ownPosts = ` FROM {{publishing_posts}} p JOIN {{publishing_brands}} b ON b.brand_id = p.brand_id
	WHERE b.organization_id = $1 AND NOT p.deleted`

// Posts lists the organization's posts, newest first.
func (q *Queries) Posts(ctx context.Context, org string, f PostFilter) ([]domain.Post, error) {
	if f.Limit == 0 {
		f.Limit = 100
	}
	return docs[domain.Post](ctx, q, `SELECT p.doc`+ownPosts+`
		AND ($2 = '' OR p.brand_id = $2) AND ($3 = '' OR p.thread_id = $3) AND ($4 = '' OR p.status = $4)
		ORDER BY p.created_at DESC, p.post_id LIMIT $5`, org, f.BrandID, f.ThreadID, f.Status, f.Limit)
}

// Post is one of the organization's posts.
func (q *Queries) Post(ctx context.Context, org, postID string) (domain.Post, error) {
	list, err := docs[domain.Post](ctx, q, `SELECT p.doc`+ownPosts+` AND p.post_id = $2`, org, postID)
	if err != nil {
		return domain.Post{}, err
	}
	if len(list) == 0 {
		return domain.Post{}, errs.NotFound("post")
	}
	return list[0], nil
}

// Media are the organization's media files (of one brand when named).
func (q *Queries) Media(ctx context.Context, org, brandID string, limit int) ([]domain.Media, error) {
	s, err := q.sql(ctx, `SELECT media_id, brand_id, filename, content_type, size, object_key, created_by, created_at FROM {{publishing_media}} m
		WHERE (m.organization_id = $1 AND m.brand_id IS NULL OR m.brand_id IN (SELECT brand_id FROM {{publishing_brands}} WHERE organization_id = $1))
		AND ($2 = '' OR m.brand_id = $2) ORDER BY created_at DESC LIMIT $3`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, s, org, brandID, limit)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Media, error) {
		var m domain.Media
		err := r.Scan(&m.MediaID, &m.BrandID, &m.Filename, &m.ContentType, &m.Size, &m.Key, &m.CreatedBy, &m.CreatedAt)
		m.Kind = domain.MediaKind(m.ContentType)
		return m, err
	})
	if out == nil {
		out = []domain.Media{}
	}
	return out, err
}

// MediaFile is one media file by id, whatever the organization (the
// publisher resolves a post's media by its brand).
func (q *Queries) MediaFile(ctx context.Context, mediaID string) (domain.Media, error) {
	s, err := q.sql(ctx, `SELECT media_id, brand_id, filename, content_type, size, object_key, created_by, created_at, organization_id
		FROM {{publishing_media}} WHERE media_id = $1`)
	if err != nil {
		return domain.Media{}, err
	}
	var m domain.Media
	err = q.pool.QueryRow(ctx, s, mediaID).Scan(&m.MediaID, &m.BrandID, &m.Filename, &m.ContentType, &m.Size, &m.Key, &m.CreatedBy,
		&m.CreatedAt, &m.OrganizationID)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, errs.NotFound("media")
	}
	m.Kind = domain.MediaKind(m.ContentType)
	return m, err
}

// Seeds are the shared seeds of the organization's brands.
func (q *Queries) Seeds(ctx context.Context, org, brandID string, limit int) ([]domain.Seed, error) {
	return docs[domain.Seed](ctx, q, `SELECT s.doc FROM {{publishing_seeds}} s JOIN {{publishing_brands}} b ON b.brand_id = s.brand_id
		WHERE b.organization_id = $1 AND ($2 = '' OR s.brand_id = $2) ORDER BY s.shared_at DESC LIMIT $3`, org, brandID, limit)
}

// PostCounts are what the publishing tile of the dashboard shows: posts
// waiting for their time, posts with a target the network refused or that
// failed (the ones a person should look at), and suggestions waiting for
// review.
type PostCounts struct {
	Scheduled      int `json:"scheduled"`
	Failed         int `json:"failed"`
	AwaitingReview int `json:"awaiting_review"`
}

// PostCounts counts the organization's live posts.
func (q *Queries) PostCounts(ctx context.Context, org string) (PostCounts, error) {
	s, err := q.sql(ctx, `SELECT count(*) FILTER (WHERE p.status = $2)::int,
		count(*) FILTER (WHERE EXISTS (SELECT 1 FROM {{publishing_targets}} t WHERE t.post_id = p.post_id AND t.state = $3))::int,
		count(*) FILTER (WHERE p.approval = $4)::int`+ownPosts)
	if err != nil {
		return PostCounts{}, err
	}
	var c PostCounts
	err = q.pool.QueryRow(ctx, s, org, domain.StateScheduled, domain.StateFailed, domain.ApprovalPending).
		Scan(&c.Scheduled, &c.Failed, &c.AwaitingReview)
	return c, err
}

// NeedingPerson is a post a person must look at: one awaiting review
// (a suggestion), or one with a target whose publication is unconfirmed
// (sent, no answer from the network: someone checks the network).
type NeedingPerson struct {
	PostID  string
	BrandID string
	Reason  string // awaiting_review or unconfirmed
	Since   time.Time
}

// NeedingPerson lists the organization's live posts a person must look at,
// oldest first, at most limit of each reason.
func (q *Queries) NeedingPerson(ctx context.Context, org string, limit int) ([]NeedingPerson, error) {
	s, err := q.sql(ctx, `(SELECT p.post_id, p.brand_id, 'awaiting_review', p.updated_at`+ownPosts+` AND p.approval = $2
		ORDER BY p.updated_at, p.post_id LIMIT $4)
		UNION ALL
		(SELECT p.post_id, p.brand_id, 'unconfirmed', (SELECT min(t.updated_at) FROM {{publishing_targets}} t
			WHERE t.post_id = p.post_id AND t.state = $3)`+ownPosts+`
		AND EXISTS (SELECT 1 FROM {{publishing_targets}} t WHERE t.post_id = p.post_id AND t.state = $3)
		ORDER BY 4, 1 LIMIT $4)`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, s, org, domain.ApprovalPending, domain.StateUnconfirmed, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[NeedingPerson])
}
