package publishing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
)

// runPost executes a decision on a post's stream, loaded from its
// snapshot (the post as the last command answered it).
func (h *Handlers) runPost(ctx context.Context, m commands.Meta, postID string, act func(*domain.Post) ([]event.Change, error),
	opts ...commands.Option) (commands.Result[domain.Post], error) {
	opts = append([]commands.Option{commands.Snapshots(domain.SnapshotSchema)}, opts...)
	return commands.Execute(ctx, h.store, m, domain.StreamPost, postID, domain.LoadPost, act, (*domain.Post).State, opts...)
}

// ItemIn is one item of a thread as a client sends it.
type ItemIn struct {
	Text  string   `json:"text"`
	Media []string `json:"media"`
	Link  *string  `json:"link"`
}

// TargetIn is a target as a client names it.
type TargetIn struct {
	Network   string  `json:"network"`
	AccountID *string `json:"accountId"`
	PageID    *string `json:"pageId"`
}

// CreatePost is posts.create.
type CreatePost struct {
	BrandID   string     `json:"brandId"`
	Text      string     `json:"text"`
	Media     []string   `json:"media"`
	Link      *string    `json:"link"`
	Thread    []ItemIn   `json:"thread"`
	Targets   []TargetIn `json:"targets"`
	PublishAt *time.Time `json:"publishAt"`
	// Status: draft (default without publishAt) or scheduled (default with).
	Status string `json:"status"`
}

func items(first ItemIn, thread []ItemIn) []domain.Item {
	out := []domain.Item{{Text: first.Text, Media: first.Media, Link: first.Link}}
	for _, it := range thread {
		out = append(out, domain.Item{Text: it.Text, Media: it.Media, Link: it.Link})
	}
	return out
}

func targets(in []TargetIn) []domain.TargetSpec {
	if in == nil {
		return nil
	}
	out := make([]domain.TargetSpec, len(in))
	for i, t := range in {
		out[i] = domain.TargetSpec{Network: t.Network, AccountID: t.AccountID, PageID: t.PageID}
	}
	return out
}

func (h *Handlers) CreatePost(ctx context.Context, m commands.Meta, in CreatePost) (commands.Result[domain.Post], error) {
	b, err := h.Brand(ctx, m.OrganizationID, in.BrandID)
	if err != nil {
		return commands.Result[domain.Post]{}, err
	}
	n := domain.NewPost{ID: uuid.Must(uuid.NewV7()).String(), BrandID: b.BrandID, AuthorID: m.Actor.ID, Origin: domain.OriginManual,
		Draft: domain.Draft{Items: items(ItemIn{Text: in.Text, Media: in.Media, Link: in.Link}, in.Thread), Targets: targets(in.Targets),
			PublishAt: in.PublishAt, Schedule: in.Status == domain.StateScheduled || in.Status == "" && in.PublishAt != nil}}
	if err := h.checkMedia(ctx, b, n.Draft.Items); err != nil {
		return commands.Result[domain.Post]{}, err
	}
	return h.createPost(ctx, home(m, b), n)
}

func (h *Handlers) createPost(ctx context.Context, m commands.Meta, n domain.NewPost) (commands.Result[domain.Post], error) {
	return h.runPost(ctx, m, n.ID, func(p *domain.Post) ([]event.Change, error) { return p.Create(n, h.now()) })
}

// UpdatePost is posts.update (PUT): members present replace the post's;
// status draft reverts a scheduled post (schedule cleared, answered as the
// draft), status scheduled or a publishAt puts it on the schedule.
type UpdatePost struct {
	PostID    string     `json:"postId"`
	Text      *string    `json:"text"`
	Media     []string   `json:"media"`
	Link      *string    `json:"link"`
	Thread    []ItemIn   `json:"thread"`
	Targets   []TargetIn `json:"targets"`
	PublishAt *time.Time `json:"publishAt"`
	Status    string     `json:"status"`
}

func (h *Handlers) UpdatePost(ctx context.Context, m commands.Meta, in UpdatePost) (commands.Result[domain.Post], error) {
	p, m, err := h.PostOf(ctx, m, in.PostID)
	if err != nil {
		return commands.Result[domain.Post]{}, err
	}
	e := domain.Edit{Targets: targets(in.Targets), PublishAt: in.PublishAt}
	if in.Text != nil || in.Media != nil || in.Link != nil || in.Thread != nil {
		first := p.Items[0]
		cur := ItemIn{Text: first.Text, Media: first.Media, Link: first.Link}
		if in.Text != nil {
			cur.Text = *in.Text
		}
		if in.Media != nil {
			cur.Media = in.Media
		}
		if in.Link != nil {
			cur.Link = in.Link
		}
		thread := in.Thread
		if thread == nil {
			for _, it := range p.Items[1:] {
				thread = append(thread, ItemIn{Text: it.Text, Media: it.Media, Link: it.Link})
			}
		}
		e.Items = items(cur, thread)
		if err := h.checkPostMedia(ctx, p.BrandID, e.Items); err != nil {
			return commands.Result[domain.Post]{}, err
		}
	}
	switch in.Status {
	case domain.StateDraft:
		f := false
		e.Schedule = &f
	case domain.StateScheduled:
		t := true
		e.Schedule = &t
	}
	return h.runPost(ctx, m, in.PostID, func(p *domain.Post) ([]event.Change, error) { return p.Update(e, h.now()) })
}

// PostID names a post (or a content item: a content item is a post).
type PostID struct {
	PostID string `json:"postId"`
}

// DeletePost is posts.delete.
func (h *Handlers) DeletePost(ctx context.Context, m commands.Meta, in PostID) (commands.Result[domain.Post], error) {
	_, m, err := h.PostOf(ctx, m, in.PostID)
	if err != nil {
		return commands.Result[domain.Post]{}, err
	}
	return h.runPost(ctx, m, in.PostID, func(p *domain.Post) ([]event.Change, error) { return p.Delete(h.now()) })
}
