package brands

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"

	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// What other contexts ask of kits, from the registry (consistent with the
// commands: a kit published a moment ago is there).

// ErrNoSuchKit is a kit reference to a kit that does not exist, is deleted,
// or that the caller does not see: callers answer it at their member's
// pointer.
var ErrNoSuchKit = errors.New("no such brand kit")

// row is a kit's registry row.
type row struct {
	org, current string
	workspace    *string
	available    bool
	deleted      bool
}

func (h *Handlers) row(ctx context.Context, kitID string) (row, bool, error) {
	var r row
	var current *string
	err := h.pool.QueryRow(ctx, `SELECT organization_id, workspace_id, current_version_id, available, deleted FROM brands_kits WHERE kit_id = $1`,
		kitID).Scan(&r.org, &r.workspace, &current, &r.available, &r.deleted)
	if errors.Is(err, pgx.ErrNoRows) {
		return row{}, false, nil
	}
	if err != nil {
		return row{}, false, errs.Unavailable("the brand kits' store is unavailable", err)
	}
	if current != nil {
		r.current = *current
	}
	return r, true, nil
}

// Sees reports whether a kit exists, is not deleted and the caller sees it
// (its own organization's, in a workspace it may enter; or a published
// library kit): what a studio project's or a publishing brand's kit
// reference needs.
func (h *Handlers) Sees(ctx context.Context, p principal.Principal, kitID string) (bool, error) {
	r, ok, err := h.row(ctx, kitID)
	if err != nil {
		return false, err
	}
	return ok && !r.deleted && (domain.Owner{OrganizationID: r.org, WorkspaceID: r.workspace}).Sees(p, r.current != "", h.cfg.Library), nil
}

// Governing is the version a new design of the caller pins: the kit must
// be one the caller sees, published and offered for governed design (what
// brands.list lists); versionID "" is its current version, another must be
// one of its versions. ErrNoSuchKit otherwise, or ErrNoSuchVersion.
func (h *Handlers) Governing(ctx context.Context, p principal.Principal, kitID, versionID string) (domain.Version, error) {
	r, ok, err := h.row(ctx, kitID)
	if err != nil {
		return domain.Version{}, err
	}
	owner := domain.Owner{OrganizationID: r.org, WorkspaceID: r.workspace}
	if !ok || r.deleted || r.current == "" || !r.available || !owner.Sees(p, true, h.cfg.Library) {
		return domain.Version{}, ErrNoSuchKit
	}
	if versionID == "" {
		versionID = r.current
	}
	v, err := h.Version(ctx, versionID)
	if err != nil {
		return domain.Version{}, err
	}
	if v.KitID != kitID {
		return domain.Version{}, ErrNoSuchVersion
	}
	return v, nil
}

// ErrNoSuchVersion is a version id that is no version (of the kit named).
var ErrNoSuchVersion = errors.New("no such brand kit version")

// Version reads a published version by id, whoever asks: a design pinned
// it when its author saw the kit, and keeps it (a deleted kit's versions
// too).
func (h *Handlers) Version(ctx context.Context, versionID string) (domain.Version, error) {
	var raw []byte
	err := h.pool.QueryRow(ctx, `SELECT doc FROM brands_versions WHERE version_id = $1`, versionID).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Version{}, ErrNoSuchVersion
	}
	if err != nil {
		return domain.Version{}, errs.Unavailable("the brand kits' store is unavailable", err)
	}
	var v domain.Version
	return v, json.Unmarshal(raw, &v)
}

// Library is the configured library owner.
func (h *Handlers) Library() domain.Library { return h.cfg.Library }
