package brands

import (
	brandscmd "github.com/platform/backend/commands/brands"
	"github.com/platform/backend/internal/module"
)

// Config is the brand service's section.
type Config struct {
	// Commands bound kit files and their links (BRANDS_FONT_MAX_BYTES,
	// BRANDS_LOGO_MAX_BYTES, BRANDS_DOWNLOAD_TTL) and name seed 000's
	// library owner (LIBRARY_OWNER_ORGANIZATION_ID,
	// LIBRARY_OWNER_WORKSPACE_ID): the brand service decides which kits a
	// caller sees, so it reads them (the design service lists what it says).
	Commands brandscmd.Config
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Int64("BRANDS_FONT_MAX_BYTES", &c.Commands.FontMaxBytes)
	env.Int64("BRANDS_LOGO_MAX_BYTES", &c.Commands.LogoMaxBytes)
	env.Duration("BRANDS_DOWNLOAD_TTL", &c.Commands.DownloadTTL)
	env.String("LIBRARY_OWNER_ORGANIZATION_ID", &c.Commands.Library.OrganizationID)
	env.String("LIBRARY_OWNER_WORKSPACE_ID", &c.Commands.Library.WorkspaceID)
	return env.Err()
}

func (c *Config) Defaults() { c.Commands = c.Commands.WithDefaults() }

func (c *Config) Validate() error { return c.Commands.Validate() }
