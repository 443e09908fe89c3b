// Package design holds the design service's commands, one file each:
// projects; designs governed by the brand kit version they pin (create,
// change, rebrand, duplicate, delete); uploaded images; exports as durable
// jobs (exports.go: the job kind, its Do and Probe); the organization's
// erasure.
package design

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/deletions"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/brands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/internal/migrate"
	"github.com/platform/backend/internal/objectstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the design service's write-side tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "design-commands", migrations, "migrations")
}

// AppID is the design service's identity app id (seed 000: workspace:read
// is checked as design.workspace:read).
const AppID = "design"

// Permissions, checked in the path's workspace (principal.AllowsIn).
const (
	PermWorkspaceRead  = AppID + ".workspace:read"
	PermWorkspaceWrite = AppID + ".workspace:write"
	PermAssetsWrite    = AppID + ".assets:write"
	PermExportsWrite   = AppID + ".exports:write"
	// PermPrivacyManage exports and erases the organization's designs:
	// admins by the default role bundles (members hold read and write).
	PermPrivacyManage = AppID + ".privacy:manage"
)

// Config bounds the design service's commands.
type Config struct {
	// AssetMaxBytes bounds an uploaded image (DESIGN_ASSET_MAX_BYTES, 25 MiB).
	AssetMaxBytes int64
	// DownloadTTL is how long an export's signed link works
	// (DESIGN_DOWNLOAD_TTL, 15 minutes).
	DownloadTTL time.Duration
	// WorkDir holds exports while they are rendered (DESIGN_WORK_DIR,
	// default the system's temporary directory).
	WorkDir string
	// Export jobs: attempts, lease, time limit and how many a worker runs at
	// once (DESIGN_EXPORT_MAX_ATTEMPTS 3, DESIGN_EXPORT_LEASE 1m,
	// DESIGN_EXPORT_TIMEOUT 10m, DESIGN_EXPORT_CONCURRENCY 2).
	ExportAttempts    int
	ExportLease       time.Duration
	ExportTimeout     time.Duration
	ExportConcurrency int
	// Media bounds ffmpeg (FFMPEG, FFPROBE name the binaries).
	Media media.Config
}

// WithDefaults fills what is unset.
func (c Config) WithDefaults() Config {
	if c.AssetMaxBytes == 0 {
		c.AssetMaxBytes = 25 << 20
	}
	if c.DownloadTTL == 0 {
		c.DownloadTTL = 15 * time.Minute
	}
	if c.WorkDir == "" {
		c.WorkDir = os.TempDir()
	}
	if c.ExportAttempts == 0 {
		c.ExportAttempts = 3
	}
	if c.ExportLease == 0 {
		c.ExportLease = time.Minute
	}
	if c.ExportTimeout == 0 {
		c.ExportTimeout = 10 * time.Minute
	}
	if c.ExportConcurrency == 0 {
		c.ExportConcurrency = 2
	}
	c.Media = c.Media.WithDefaults()
	return c
}

// Validate names every problem.
func (c Config) Validate() error {
	var problems []error
	if c.AssetMaxBytes < 1 {
		problems = append(problems, errors.New("DESIGN_ASSET_MAX_BYTES must be positive"))
	}
	if c.DownloadTTL < time.Second || c.DownloadTTL > objectstore.MaxURLExpiry {
		problems = append(problems, errors.New("DESIGN_DOWNLOAD_TTL must be 1s to 7 days"))
	}
	if c.ExportAttempts < 1 || c.ExportAttempts > 20 {
		problems = append(problems, errors.New("DESIGN_EXPORT_MAX_ATTEMPTS must be 1 to 20"))
	}
	if c.ExportLease < time.Second || c.ExportTimeout < time.Second {
		problems = append(problems, errors.New("DESIGN_EXPORT_LEASE and DESIGN_EXPORT_TIMEOUT must be at least 1s"))
	}
	if c.ExportConcurrency < 1 || c.ExportConcurrency > 64 {
		problems = append(problems, errors.New("DESIGN_EXPORT_CONCURRENCY must be 1 to 64"))
	}
	return errors.Join(append(problems, c.Media.Validate())...)
}

// Kits is the brand service as the design service asks it.
type Kits interface {
	// Governing is the version a new design of the caller pins: found is
	// false unless the kit is one the caller sees, published and offered
	// for governed design, and the version (its current one when "") is
	// one of the kit's.
	Governing(ctx context.Context, p principal.Principal, kitID, versionID string) (v brands.Version, found bool, err error)
	// Version is a published version by id.
	Version(ctx context.Context, versionID string) (v brands.Version, found bool, err error)
	// File reads a kit file's bytes (kind "font" or "logo"), at most max.
	File(ctx context.Context, organizationID, kind, fileID string, max int64) ([]byte, error)
}

// Handlers executes the design service's commands.
type Handlers struct {
	store   commands.Store
	pool    *pgxpool.Pool
	objects objectstore.Store
	dir     workspace.Directory
	kits    Kits
	now     func() time.Time
	cfg     Config
	log     *slog.Logger
	export  *jobs.Def[domain.ExportJob, domain.ExportResult]
}

// NewHandlers makes the handlers and declares the export job's kind on the
// platform's job commands (Kind lists it).
func NewHandlers(store commands.Store, pool *pgxpool.Pool, objects objectstore.Store, dir workspace.Directory, kits Kits, jobCommands *jobs.Commands,
	now func() time.Time, cfg Config, log *slog.Logger) (*Handlers, error) {
	if log == nil {
		log = slog.Default()
	}
	h := &Handlers{store: store, pool: pool, objects: objects, dir: dir, kits: kits, now: commands.Clock(now), cfg: cfg.WithDefaults(), log: log}
	var err error
	h.export, err = h.defineExport(jobCommands)
	return h, err
}

// Config is the handlers' configuration (defaults applied).
func (h *Handlers) Config() Config { return h.cfg }

// Kind is the export job's kind (the module's Parts.Jobs).
func (h *Handlers) Kind() jobs.Kind { return h.export }

// Directory is the directory of workspaces (the bootstrap's).
func (h *Handlers) Directory() workspace.Directory { return h.dir }

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// Enter resolves the path's workspace for the caller with permission.
func (h *Handlers) Enter(ctx context.Context, p principal.Principal, slug, permission string) (workspace.Workspace, error) {
	return workspace.Enter(ctx, h.dir, p, slug, permission)
}

// DrainDeletions deletes the bytes of forgotten objects (erasures), at most
// limit of them (commands/deletions).
func (h *Handlers) DrainDeletions(ctx context.Context, limit int) int {
	return deletions.Drain(ctx, h.pool, h.objects, "design_object_deletions", limit, h.log)
}

// Kit is a published brand kit version by id (what a design pins).
func (h *Handlers) Kit(ctx context.Context, versionID string) (brands.Version, bool, error) {
	return h.kits.Version(ctx, versionID)
}
