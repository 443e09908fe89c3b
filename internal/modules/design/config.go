package design

import (
	"errors"
	"strings"
	"time"

	designcmd "github.com/platform/backend/commands/design"
	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/internal/module"
)

// Config is the design service's section.
type Config struct {
	// Commands bound images, exports and their links (DESIGN_ASSET_MAX_BYTES,
	// DESIGN_DOWNLOAD_TTL, DESIGN_WORK_DIR, DESIGN_EXPORT_MAX_ATTEMPTS,
	// DESIGN_EXPORT_LEASE, DESIGN_EXPORT_TIMEOUT, DESIGN_EXPORT_CONCURRENCY).
	Commands designcmd.Config
	// AppURL is the design service's public base URL (DESIGN_APP_URL): the
	// notifications' cta_url opens a design there, in its web pages.
	// Default: the design listener.
	AppURL string
	// GatewayURL is the usage gateway's base URL (GATEWAY_URL), reported by
	// /api/health. The design service makes no provider call today (its
	// renderer is native), so nothing is sent there.
	GatewayURL string
	// RenderServiceURL is where the export renderers run when they are
	// processes of their own (RENDER_SERVICE_URL: the base URL of the
	// design-jobs listener): /api/health asks its /health. Empty: rendered
	// by the design-jobs workers of the process, reported as in-process.
	RenderServiceURL string
	// InsightsSiteKey is the web component's INSIGHTS_SITE_KEY (seed 000):
	// the pages name it in a meta element for a first-party analytics
	// script to read. No third-party script is loaded: the pages' policy
	// allows none.
	InsightsSiteKey string
	// SweepInterval drains the file deletions a crash left behind
	// (DESIGN_SWEEP_INTERVAL, default 1m; negative: never).
	SweepInterval time.Duration
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Int64("DESIGN_ASSET_MAX_BYTES", &c.Commands.AssetMaxBytes)
	env.Duration("DESIGN_DOWNLOAD_TTL", &c.Commands.DownloadTTL)
	env.String("DESIGN_WORK_DIR", &c.Commands.WorkDir)
	env.Int("DESIGN_EXPORT_MAX_ATTEMPTS", &c.Commands.ExportAttempts)
	env.Duration("DESIGN_EXPORT_LEASE", &c.Commands.ExportLease)
	env.Duration("DESIGN_EXPORT_TIMEOUT", &c.Commands.ExportTimeout)
	env.Int("DESIGN_EXPORT_CONCURRENCY", &c.Commands.ExportConcurrency)
	env.String("DESIGN_APP_URL", &c.AppURL)
	env.String("GATEWAY_URL", &c.GatewayURL)
	env.String("RENDER_SERVICE_URL", &c.RenderServiceURL)
	env.Duration("DESIGN_SWEEP_INTERVAL", &c.SweepInterval)
	env.String("INSIGHTS_SITE_KEY", &c.InsightsSiteKey)
	return env.Err()
}

func (c *Config) Defaults() {
	c.Commands = c.Commands.WithDefaults()
	if c.SweepInterval == 0 {
		c.SweepInterval = time.Minute
	}
}

func (c *Config) Validate() error {
	var problems []error
	for name, v := range map[string]string{"DESIGN_APP_URL": c.AppURL, "GATEWAY_URL": c.GatewayURL, "RENDER_SERVICE_URL": c.RenderServiceURL} {
		problems = append(problems, text.URLSetting(name, v, text.URLRules{}))
	}
	if len(c.InsightsSiteKey) > 256 || strings.ContainsAny(c.InsightsSiteKey, "\"<>\r\n") {
		problems = append(problems, errors.New("INSIGHTS_SITE_KEY must be at most 256 characters of plain text"))
	}
	return errors.Join(append(problems, c.Commands.Validate())...)
}
