package design

import (
	"context"
	"errors"

	brandscmd "github.com/platform/backend/commands/brands"
	designcmd "github.com/platform/backend/commands/design"
	"github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/principal"
)

// kits is the brand service's answer to the design service
// (designcmd.Kits), from the brands' registry.
type kits struct{ h *brandscmd.Handlers }

var _ designcmd.Kits = kits{}

func (k kits) Governing(ctx context.Context, p principal.Principal, kitID, versionID string) (brands.Version, bool, error) {
	return found(k.h.Governing(ctx, p, kitID, versionID))
}

func (k kits) Version(ctx context.Context, versionID string) (brands.Version, bool, error) {
	return found(k.h.Version(ctx, versionID))
}

func (k kits) File(ctx context.Context, organizationID, kind, fileID string, max int64) ([]byte, error) {
	return k.h.Open(ctx, organizationID, kind, fileID, max)
}

// found reads the brands' "no such kit" and "no such version" as not found.
func found(v brands.Version, err error) (brands.Version, bool, error) {
	if errors.Is(err, brandscmd.ErrNoSuchKit) || errors.Is(err, brandscmd.ErrNoSuchVersion) {
		return brands.Version{}, false, nil
	}
	return v, err == nil, err
}
