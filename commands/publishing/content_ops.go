package publishing

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
)

// ContentItem names a content item (a post) for content operations. BrandID
// is the brand a machine key acts for (X-Brand-ID): an item of another
// brand is missing.
type ContentItem struct {
	ContentID string `json:"contentId"`
	BrandID   string `json:"brandId"`
}

// itemOf loads a content item the caller may act on.
func (h *Handlers) itemOf(ctx context.Context, m commands.Meta, in ContentItem) (*domain.Post, commands.Meta, error) {
	p, m, err := h.PostOf(ctx, m, in.ContentID)
	if err != nil {
		return nil, m, err
	}
	if in.BrandID != "" && p.BrandID != in.BrandID {
		return nil, m, errs.NotFound("post")
	}
	return p, m, nil
}

func (h *Handlers) onItem(ctx context.Context, m commands.Meta, in ContentItem, act func(*domain.Post) ([]event.Change, error)) (commands.Result[domain.Post], error) {
	_, m, err := h.itemOf(ctx, m, in)
	if err != nil {
		return commands.Result[domain.Post]{}, err
	}
	return h.runPost(ctx, m, in.ContentID, act)
}

// ApproveItem is content_ops.items.approve.
func (h *Handlers) ApproveItem(ctx context.Context, m commands.Meta, in ContentItem) (commands.Result[domain.Post], error) {
	return h.onItem(ctx, m, in, func(p *domain.Post) ([]event.Change, error) { return p.Approve(h.now()) })
}

// RejectItem is content_ops.items.reject.
type RejectItem struct {
	ContentItem
	Reason *string `json:"reason"`
}

func (h *Handlers) RejectItem(ctx context.Context, m commands.Meta, in RejectItem) (commands.Result[domain.Post], error) {
	return h.onItem(ctx, m, in.ContentItem, func(p *domain.Post) ([]event.Change, error) { return p.Reject(in.Reason, h.now()) })
}

// RescheduleItem is content_ops.items.reschedule.
type RescheduleItem struct {
	ContentItem
	PublishAt time.Time `json:"publishAt"`
}

func (h *Handlers) RescheduleItem(ctx context.Context, m commands.Meta, in RescheduleItem) (commands.Result[domain.Post], error) {
	return h.onItem(ctx, m, in.ContentItem, func(p *domain.Post) ([]event.Change, error) { return p.Reschedule(in.PublishAt, h.now()) })
}

// RetryItem is content_ops.items.retry: failed targets only.
func (h *Handlers) RetryItem(ctx context.Context, m commands.Meta, in ContentItem) (commands.Result[domain.Post], error) {
	return h.onItem(ctx, m, in, func(p *domain.Post) ([]event.Change, error) { return p.Retry(h.now()) })
}

// EditItem is content_ops.items.update: the copy of a draft.
type EditItem struct {
	ContentItem
	Text   string   `json:"text"`
	Media  []string `json:"media"`
	Link   *string  `json:"link"`
	Thread []ItemIn `json:"thread"`
}

func (h *Handlers) EditItem(ctx context.Context, m commands.Meta, in EditItem) (commands.Result[domain.Post], error) {
	its := items(ItemIn{Text: in.Text, Media: in.Media, Link: in.Link}, in.Thread)
	p, m, err := h.itemOf(ctx, m, in.ContentItem)
	if err != nil {
		return commands.Result[domain.Post]{}, err
	}
	if err := h.checkPostMedia(ctx, p.BrandID, its); err != nil {
		return commands.Result[domain.Post]{}, err
	}
	return h.runPost(ctx, m, in.ContentID, func(p *domain.Post) ([]event.Change, error) { return p.SafeEdit(its, h.now()) })
}
