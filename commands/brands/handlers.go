// Package brands holds the brand kits' commands, one file each: create and
// update a kit, add and remove its fonts and logos (files in the object
// store, checked by parsing them), publish its draft as a version, delete
// it; and what other contexts ask of kits (kits.go): whether a caller sees
// a kit, the version a design pins, a kit file's bytes.
package brands

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/workspace"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/media/raster"
	"github.com/platform/backend/internal/migrate"
	"github.com/platform/backend/internal/objectstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the brands' write-side tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "brands-commands", migrations, "migrations")
}

// AppID is the brand service's identity app id: `kits:write` is checked as
// `brands.kits:write`.
const AppID = "brands"

// Permissions, checked in a kit's workspace (principal.AllowsIn) or, for a
// kit of the whole organization, by a credential bound to no workspace.
const (
	PermKitsRead  = AppID + ".kits:read"
	PermKitsWrite = AppID + ".kits:write"
	// PermKitsManage publishes and deletes kits (admins by the default role
	// bundles): what designs may use is a brand manager's decision.
	PermKitsManage = AppID + ".kits:manage"
)

// Config bounds the brands' commands.
type Config struct {
	// FontMaxBytes bounds a font file (BRANDS_FONT_MAX_BYTES, 10 MiB; at
	// most raster.MaxFontBytes).
	FontMaxBytes int64
	// LogoMaxBytes bounds a logo (BRANDS_LOGO_MAX_BYTES, 10 MiB).
	LogoMaxBytes int64
	// DownloadTTL is how long a file's signed link works
	// (BRANDS_DOWNLOAD_TTL, 15 minutes).
	DownloadTTL time.Duration
	// Library is seed 000's library owner (LIBRARY_OWNER_ORGANIZATION_ID,
	// LIBRARY_OWNER_WORKSPACE_ID): its published kits are offered to every
	// organization.
	Library domain.Library
}

// WithDefaults fills what is unset.
func (c Config) WithDefaults() Config {
	if c.FontMaxBytes == 0 {
		c.FontMaxBytes = 10 << 20
	}
	if c.LogoMaxBytes == 0 {
		c.LogoMaxBytes = 10 << 20
	}
	if c.DownloadTTL == 0 {
		c.DownloadTTL = 15 * time.Minute
	}
	return c
}

// Validate names every problem.
func (c Config) Validate() error {
	var problems []error
	if c.FontMaxBytes < 1 || c.FontMaxBytes > raster.MaxFontBytes {
		problems = append(problems, errors.New("BRANDS_FONT_MAX_BYTES must be 1 to 20 MiB"))
	}
	if c.LogoMaxBytes < 1 {
		problems = append(problems, errors.New("BRANDS_LOGO_MAX_BYTES must be positive"))
	}
	if c.DownloadTTL < time.Second || c.DownloadTTL > objectstore.MaxURLExpiry {
		problems = append(problems, errors.New("BRANDS_DOWNLOAD_TTL must be 1s to 7 days"))
	}
	if c.Library.WorkspaceID != "" && c.Library.OrganizationID == "" {
		problems = append(problems, errors.New("LIBRARY_OWNER_WORKSPACE_ID needs LIBRARY_OWNER_ORGANIZATION_ID"))
	}
	return errors.Join(problems...)
}

// Handlers executes the brands' commands.
type Handlers struct {
	store   commands.Store
	pool    *pgxpool.Pool
	objects objectstore.Store
	dir     workspace.Directory
	now     func() time.Time
	cfg     Config
	log     *slog.Logger
}

func NewHandlers(store commands.Store, pool *pgxpool.Pool, objects objectstore.Store, dir workspace.Directory, now func() time.Time,
	cfg Config, log *slog.Logger) *Handlers {
	if log == nil {
		log = slog.Default()
	}
	return &Handlers{store: store, pool: pool, objects: objects, dir: dir, now: commands.Clock(now), cfg: cfg.WithDefaults(), log: log}
}

// Config is the handlers' configuration (defaults applied).
func (h *Handlers) Config() Config { return h.cfg }

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// meta is a command's meta in the caller's organization (workspace.Meta).
var meta = workspace.Meta

var errWholeOrganization = errs.PermissionDenied("the credential is bound to workspaces: a kit of the whole organization needs a credential of the whole organization")

// authorize checks the caller may act on a kit with permission: a kit of
// another organization, or of a workspace the credential is not bound to,
// is missing (404); the permission is checked in the kit's workspace, and a
// kit of the whole organization takes a credential bound to no workspace.
func authorize(p principal.Principal, k domain.Kit, permission string) error {
	if !(domain.Owner{OrganizationID: k.OrganizationID, WorkspaceID: k.WorkspaceID}).Owns(p) {
		return errs.NotFound("brand kit")
	}
	return allowed(p, k.WorkspaceID, permission)
}

// allowed checks a permission where a kit is (or is to be) owned.
func allowed(p principal.Principal, workspaceID *string, permission string) error {
	if workspaceID != nil {
		if !p.AllowsIn(*workspaceID, permission) {
			return errs.PermissionDenied("the credential lacks permission " + permission + " in the kit's workspace")
		}
		return nil
	}
	if !p.Allows(permission) {
		return errs.PermissionDenied("the credential lacks permission " + permission)
	}
	if len(p.Workspaces) > 0 && !p.PlatformWide() {
		return errWholeOrganization
	}
	return nil
}

// onKit runs act on a live kit the caller may change with permission, and
// records the kit in the registry with its events (commands.Also). more
// adds statements of the command's own.
func (h *Handlers) onKit(ctx context.Context, m commands.Meta, p principal.Principal, kitID, permission string,
	act func(*domain.KitModel) ([]event.Change, error), more ...func(domain.Kit) []eventstore.Write) (commands.Result[domain.Kit], error) {
	res, err := commands.Execute(ctx, h.store, workspace.Meta(m, p), domain.StreamKit, kitID, domain.LoadKit, func(km *domain.KitModel) ([]event.Change, error) {
		if err := km.Live(); err != nil {
			return nil, err
		}
		if err := authorize(p, km.State(), permission); err != nil {
			return nil, err
		}
		return act(km)
	}, (*domain.KitModel).State, commands.Also(func(k domain.Kit) []eventstore.Write {
		out := []eventstore.Write{registered(k)}
		for _, f := range more {
			out = append(out, f(k)...)
		}
		return out
	}))
	return res, missing(err)
}

// missing makes the event store's answer for another organization's kit
// ("brands.kit not found") the answer for a kit that exists nowhere.
func missing(err error) error {
	if e, ok := errs.As(err); ok && e.Kind == errs.KindNotFound && e.Message == domain.StreamKit+" not found" {
		return errs.NotFound("brand kit")
	}
	return err
}

// registered is a kit's registry row as the kit is after a command.
func registered(k domain.Kit) eventstore.Write {
	return eventstore.Write{SQL: `INSERT INTO brands_kits (kit_id, organization_id, workspace_id, current_version_id, available, deleted, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (kit_id) DO UPDATE SET current_version_id = EXCLUDED.current_version_id,
		available = EXCLUDED.available, deleted = EXCLUDED.deleted, updated_at = EXCLUDED.updated_at`,
		Args: []any{k.KitID, k.OrganizationID, k.WorkspaceID, k.CurrentVersionID, k.AvailableForDesign, k.Deleted, k.UpdatedAt}}
}

// load reads a kit from the write side for the caller (a kit it does not
// own is missing).
func (h *Handlers) load(ctx context.Context, p principal.Principal, kitID string) (*domain.KitModel, error) {
	history, err := h.store.Load(ctx, kitID)
	if err != nil {
		return nil, errs.Unavailable("the brand kits' store is unavailable", err)
	}
	if len(history) == 0 || history[0].OrganizationID != p.OrganizationID || history[0].StreamType != domain.StreamKit {
		return nil, errs.NotFound("brand kit")
	}
	km, err := domain.LoadKit(commands.Recorded(history))
	if err != nil {
		return nil, err
	}
	if err := km.Live(); err != nil {
		return nil, err
	}
	return km, nil
}

// File kinds and their object keys: the kit's organization's namespace,
// then the brands'. Files are never deleted while their kit exists: a
// version may name a file the draft dropped.
const (
	KindFont = "font"
	KindLogo = "logo"
)

// ObjectKey is where a kit file's bytes are.
func ObjectKey(organizationID, kind, fileID string) string {
	return organizationID + "/brands/" + kind + "s/" + fileID
}
