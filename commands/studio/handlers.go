// Package studio holds the studio's commands, one file each: projects,
// their brief, scenes, plan and approvals; composition versions; render
// jobs; generation requests; assets and previews; templates and presets;
// quotas; workspace deletion and the organization's export's counterpart,
// erasure.
package studio

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
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/migrate"
	"github.com/platform/backend/internal/objectstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the studio's write-side tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "studio-commands", migrations, "migrations")
}

// AppID is the studio's identity app id: an action's `workspace:write` is
// checked as `studio.workspace:write`.
const AppID = "studio"

// Permissions the commands check per workspace (principal.AllowsIn).
const (
	PermWorkspaceRead   = AppID + ".workspace:read"
	PermWorkspaceWrite  = AppID + ".workspace:write"
	PermWorkspaceDelete = AppID + ".workspace:delete"
	// PermWorkspaceManage makes the caller an admin of the workspace:
	// templates and presets of others, approvals of others, gateway
	// overrides of a generation.
	PermWorkspaceManage = AppID + ".workspace:manage"
	PermBriefsWrite     = AppID + ".briefs:write"
	PermSettingsWrite   = AppID + ".settings:write"
	PermAssetsWrite     = AppID + ".assets:write"
	PermExportsRead     = AppID + ".exports:read"
	PermGenerationWrite = AppID + ".generation:write"
	PermApprovalsWrite  = AppID + ".approvals:write"
	PermProjectsRead    = AppID + ".projects:read"
)

// Config bounds the studio's commands.
type Config struct {
	// AssetMaxBytes bounds an uploaded asset (STUDIO_ASSET_MAX_BYTES, 50 MiB).
	AssetMaxBytes int64
	// PreviewKey signs asset previews (STUDIO_PREVIEW_KEY); PreviewTTL is how
	// long a preview link works (STUDIO_PREVIEW_TTL, 15 minutes).
	PreviewKey []byte
	PreviewTTL time.Duration
	// Monthly quotas per workspace (STUDIO_QUOTA_RENDERS,
	// STUDIO_QUOTA_GENERATIONS) and the share that warns
	// (STUDIO_QUOTA_WARNING_PERCENT, 80).
	RenderQuota         int
	GenerationQuota     int
	QuotaWarningPercent int
}

// WithDefaults fills what is unset.
func (c Config) WithDefaults() Config {
	if c.AssetMaxBytes == 0 {
		c.AssetMaxBytes = 50 << 20
	}
	if c.PreviewTTL == 0 {
		c.PreviewTTL = 15 * time.Minute
	}
	if c.RenderQuota == 0 {
		c.RenderQuota = 1000
	}
	if c.GenerationQuota == 0 {
		c.GenerationQuota = 2000
	}
	if c.QuotaWarningPercent == 0 {
		c.QuotaWarningPercent = 80
	}
	return c
}

// Validate names every problem.
func (c Config) Validate() error {
	var problems []error
	if c.AssetMaxBytes < 1 {
		problems = append(problems, errors.New("STUDIO_ASSET_MAX_BYTES must be positive"))
	}
	if c.PreviewTTL < time.Second || c.PreviewTTL > objectstore.MaxURLExpiry {
		problems = append(problems, errors.New("STUDIO_PREVIEW_TTL must be 1s to 7 days"))
	}
	if c.PreviewKey != nil && len(c.PreviewKey) < 32 {
		problems = append(problems, errors.New("STUDIO_PREVIEW_KEY must hold at least 32 bytes"))
	}
	if c.RenderQuota < 1 || c.GenerationQuota < 1 {
		problems = append(problems, errors.New("STUDIO_QUOTA_RENDERS and STUDIO_QUOTA_GENERATIONS must be positive"))
	}
	if c.QuotaWarningPercent < 1 || c.QuotaWarningPercent > 100 {
		problems = append(problems, errors.New("STUDIO_QUOTA_WARNING_PERCENT must be 1 to 100"))
	}
	return errors.Join(problems...)
}

// Workspace is an identity workspace as the studio sees it.
type Workspace = workspace.Workspace

// Directory is what the studio asks identity: the organization's workspaces
// (from identity's write side, so a new or renamed one is seen at once),
// whether a user is an active member, and the deletion of a workspace with
// the studio's guard in its transaction.
type Directory interface {
	workspace.Directory
	ActiveMember(ctx context.Context, organizationID, userID string) (bool, error)
	DeleteWorkspace(ctx context.Context, m commands.Meta, slug string, guard WorkspaceGuard) ([]Workspace, error)
}

// WorkspaceGuard is the studio's part of a workspace deletion (identity's
// commands.WorkspaceGuard, restated so this package needs no identity import).
type WorkspaceGuard struct {
	Prepare func(ctx context.Context, tx eventstore.Tx, workspaceID string) error
	Writes  func(workspaceID string) []eventstore.Write
}

// BrandKits is the brand service as the studio asks it: whether a caller
// sees a brand kit (a project's brandKitId: one that exists, is not
// deleted, and is its organization's or the library's).
type BrandKits interface {
	Sees(ctx context.Context, p principal.Principal, kitID string) (bool, error)
}

// Handlers executes studio commands.
type Handlers struct {
	kits    BrandKits
	store   commands.Store
	pool    *pgxpool.Pool
	objects objectstore.Store
	dir     Directory
	now     func() time.Time
	cfg     Config
	log     *slog.Logger
	// jobs are the studio's kinds of durable job (NewJobs): nil, nothing
	// is requested (a render or generation waits for the reactor).
	jobs *Jobs
}

func NewHandlers(store commands.Store, pool *pgxpool.Pool, objects objectstore.Store, dir Directory, now func() time.Time, cfg Config,
	log *slog.Logger) *Handlers {
	if log == nil {
		log = slog.Default()
	}
	return &Handlers{store: store, pool: pool, objects: objects, dir: dir, now: commands.Clock(now), cfg: cfg.WithDefaults(), log: log}
}

// SetBrandKits sets the brand service's answer for projects' brandKitId
// (without it, a kit reference is kept as given).
func (h *Handlers) SetBrandKits(k BrandKits) { h.kits = k }

// brandKit checks a project's kit reference: a kit the caller sees, or
// none ("" clears it). Its refusal is a field of the command's 422.
func (h *Handlers) brandKit(ctx context.Context, p principal.Principal, id *string) (*errs.Field, error) {
	if h.kits == nil || id == nil || *id == "" {
		return nil, nil
	}
	ok, err := h.kits.Sees(ctx, p, *id)
	if err != nil || ok {
		return nil, err
	}
	return &errs.Field{Pointer: "/brandKitId", Detail: "no such brand kit"}, nil
}

// Config is the handlers' configuration (defaults applied).
func (h *Handlers) Config() Config { return h.cfg }

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// Enter resolves a workspace slug of the caller's organization and checks
// the caller may act there with permission: an unknown slug (or another
// organization's) is 404; a key bound to other workspaces, or not allowed
// the permission's scope in this one, is 403 permission_denied.
func (h *Handlers) Enter(ctx context.Context, p principal.Principal, slug, permission string) (Workspace, error) {
	return workspace.Enter(ctx, h.dir, p, slug, permission)
}

// Workspaces lists the organization's workspaces the caller is bound to.
func (h *Handlers) Workspaces(ctx context.Context, p principal.Principal) ([]Workspace, error) {
	return workspace.Bound(ctx, h.dir, p)
}

// Directory is the handlers' directory of workspaces (the bootstrap's).
func (h *Handlers) Directory() Directory { return h.dir }

// WorkspaceAdmin reports whether the caller administers the workspace.
func WorkspaceAdmin(p principal.Principal, workspaceID string) bool {
	return p.AllowsIn(workspaceID, PermWorkspaceManage)
}
