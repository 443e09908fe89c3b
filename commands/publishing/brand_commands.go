package publishing

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/publishing"
)

// runBrand executes a decision on a brand's stream, loaded from its
// snapshot (the brand with its home organization).
func (h *Handlers) runBrand(ctx context.Context, m commands.Meta, brandID string, act func(*domain.Brand) ([]event.Change, error),
	opts ...commands.Option) (commands.Result[domain.Brand], error) {
	opts = append([]commands.Option{commands.SnapshotsOf(domain.SnapshotSchema, domain.BrandSnapshot)}, opts...)
	return commands.Execute(ctx, h.store, m, domain.StreamBrand, brandID, domain.LoadBrand, act, (*domain.Brand).State, opts...)
}

// CreateBrand is brands.create.
type CreateBrand struct {
	Name string `json:"name"`
}

func (h *Handlers) CreateBrand(ctx context.Context, m commands.Meta, in CreateBrand) (commands.Result[domain.Brand], error) {
	id := uuid.Must(uuid.NewV7()).String()
	return h.runBrand(ctx, m, id, func(b *domain.Brand) ([]event.Change, error) {
		return b.Create(id, in.Name, m.OrganizationID, m.Actor.ID, h.now())
	})
}

// TransferBrand is brands.transfer_organization.
type TransferBrand struct {
	BrandID        string `json:"brandId"`
	OrganizationID string `json:"organizationId"`
}

// OrganizationAccess tells whether the caller can act in an organization
// (a member there, or platform-wide): identity's answer.
type OrganizationAccess func(ctx context.Context, principalID, organizationID string) (bool, error)

// SetOrganizationAccess sets identity's answer to "can this principal act
// in that organization" (transfers need it; without it, only the caller's
// own organization is accessible).
func (h *Handlers) SetOrganizationAccess(a OrganizationAccess) { h.access = a }

// TransferBrand moves a brand the caller's organization has to another
// organization the caller can access; the brand's id and content stay.
func (h *Handlers) TransferBrand(ctx context.Context, m commands.Meta, in TransferBrand) (commands.Result[domain.Brand], error) {
	b, err := h.Brand(ctx, m.OrganizationID, in.BrandID)
	if err != nil {
		return commands.Result[domain.Brand]{}, err
	}
	ok := in.OrganizationID == m.OrganizationID
	if !ok && h.access != nil {
		if ok, err = h.access(ctx, m.Actor.ID, in.OrganizationID); err != nil {
			return commands.Result[domain.Brand]{}, err
		}
	}
	if !ok {
		// Whether the organization exists is not the caller's to learn.
		return commands.Result[domain.Brand]{}, errs.InvalidField("/organizationId", "must be an organization you can access")
	}
	return h.runBrand(ctx, home(m, b), in.BrandID, func(b *domain.Brand) ([]event.Change, error) {
		return b.Transfer(in.OrganizationID, h.now())
	})
}

// BrandKits is the brand service as publishing asks it: whether a caller
// sees a brand kit (a brand's brandKitId).
type BrandKits interface {
	Sees(ctx context.Context, p principal.Principal, kitID string) (bool, error)
}

// SetBrandKits sets the brand service's answer (without it, brands take no
// kit: 503).
func (h *Handlers) SetBrandKits(k BrandKits) { h.kits = k }

// SetBrandKit is brands.brand_kit.set.
type SetBrandKit struct {
	BrandID    string  `json:"brandId"`
	BrandKitID *string `json:"brandKitId"`
}

// SetBrandKit names the brand kit a brand follows (null or "" for none):
// a kit the caller sees (its organization's, or the library's), 400 at
// /brandKitId otherwise.
func (h *Handlers) SetBrandKit(ctx context.Context, m commands.Meta, p principal.Principal, in SetBrandKit) (commands.Result[domain.Brand], error) {
	var none commands.Result[domain.Brand]
	b, err := h.Brand(ctx, m.OrganizationID, in.BrandID)
	if err != nil {
		return none, err
	}
	if in.BrandKitID != nil && *in.BrandKitID != "" {
		if h.kits == nil {
			return none, errs.Unavailable("the brand service is not available", nil)
		}
		ok, err := h.kits.Sees(ctx, p, *in.BrandKitID)
		if err != nil {
			return none, err
		}
		if !ok {
			return none, errs.InvalidField("/brandKitId", "no such brand kit")
		}
	}
	return h.runBrand(ctx, home(m, b), b.BrandID, func(b *domain.Brand) ([]event.Change, error) {
		if b.OrganizationID != m.OrganizationID {
			return nil, errs.NotFound("brand")
		}
		return b.SetBrandKit(in.BrandKitID, h.now())
	})
}
