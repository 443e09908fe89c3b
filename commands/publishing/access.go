package publishing

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
)

// Tenancy. A brand's streams (the brand's and its posts') belong in the
// event store to the organization that created the brand; the organization
// that may use the brand is the brand's, moved by transfer-organization
// without touching a stream. So a command checks the brand's organization
// against the caller's, then runs as the brand's home organization (the
// event store's tenant check, idempotency scope and timers follow it).

// load reads a stream's history of one stream type from the write side,
// from its snapshot (posts and brands keep one); another type (or nothing)
// is a missing stream.
func (h *Handlers) load(ctx context.Context, streamType, streamID string) ([]event.Recorded, error) {
	history, err := h.store.LoadLatest(ctx, streamID, domain.SnapshotSchema)
	if err != nil {
		return nil, err
	}
	if len(history) == 0 || history[0].StreamType != streamType {
		return nil, nil
	}
	return commands.Recorded(history), nil
}

// Brand loads a brand the caller's organization may use.
func (h *Handlers) Brand(ctx context.Context, organizationID, brandID string) (*domain.Brand, error) {
	b, err := h.BrandAny(ctx, brandID)
	if err != nil {
		return nil, err
	}
	if b.OrganizationID != organizationID {
		return nil, errs.NotFound("brand") // another organization's brand is a missing one
	}
	return b, nil
}

// BrandAny loads a brand whatever its organization (the publisher, which
// acts for the post's brand, not for a caller).
func (h *Handlers) BrandAny(ctx context.Context, brandID string) (*domain.Brand, error) {
	history, err := h.load(ctx, domain.StreamBrand, brandID)
	if err != nil {
		return nil, err
	}
	b, err := domain.LoadBrand(history)
	if err != nil {
		return nil, err
	}
	if !b.Exists() {
		return nil, errs.NotFound("brand")
	}
	return b, nil
}

// home is the caller's meta acting as the brand's home organization.
func home(m commands.Meta, b *domain.Brand) commands.Meta {
	m.OrganizationID = b.HomeOrganizationID
	return m
}

// PostOf loads a post whose brand the caller's organization may use, and
// the meta its commands run with. Another organization's post is missing.
func (h *Handlers) PostOf(ctx context.Context, m commands.Meta, postID string) (*domain.Post, commands.Meta, error) {
	history, err := h.load(ctx, domain.StreamPost, postID)
	if err != nil {
		return nil, m, err
	}
	p, err := domain.LoadPost(history)
	if err != nil {
		return nil, m, err
	}
	if !p.Exists() {
		return nil, m, errs.NotFound("post")
	}
	b, err := h.Brand(ctx, m.OrganizationID, p.BrandID)
	if err != nil {
		if errs.KindOf(err) == errs.KindNotFound {
			return nil, m, errs.NotFound("post")
		}
		return nil, m, err
	}
	return p, home(m, b), nil
}

// PostAny loads a post from the write side whatever its organization.
func (h *Handlers) PostAny(ctx context.Context, postID string) (*domain.Post, error) {
	history, err := h.load(ctx, domain.StreamPost, postID)
	if err != nil {
		return nil, err
	}
	return domain.LoadPost(history)
}
