package status

import (
	"time"

	statuscmd "github.com/platform/backend/commands/status"
	"github.com/platform/backend/internal/module"
)

// Config is the status service's section.
type Config struct {
	// PublicOrganizationID owns the public status page (GET /api/status,
	// GET /): STATUS_PUBLIC_ORGANIZATION_ID.
	PublicOrganizationID string
	// PollInterval is the periodic check of every component
	// (STATUS_POLL_INTERVAL, default 30s); negative disables the poller.
	PollInterval time.Duration
	// Checks bound the checks and components per organization
	// (STATUS_CHECK_TIMEOUT, STATUS_POLL_WORKERS, STATUS_ORG_CONCURRENCY,
	// STATUS_ORG_BUDGET, STATUS_MAX_COMPONENTS, STATUS_MANUAL_POLL_INTERVAL).
	Checks statuscmd.Config
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.String("STATUS_PUBLIC_ORGANIZATION_ID", &c.PublicOrganizationID)
	env.Duration("STATUS_POLL_INTERVAL", &c.PollInterval)
	env.Duration("STATUS_CHECK_TIMEOUT", &c.Checks.CheckTimeout)
	env.Duration("STATUS_ORG_BUDGET", &c.Checks.OrgBudget)
	env.Duration("STATUS_MANUAL_POLL_INTERVAL", &c.Checks.ManualPollInterval)
	env.Int("STATUS_POLL_WORKERS", &c.Checks.Workers)
	env.Int("STATUS_ORG_CONCURRENCY", &c.Checks.OrgConcurrency)
	env.Int("STATUS_MAX_COMPONENTS", &c.Checks.MaxComponents)
	return env.Err()
}

func (c *Config) Defaults() {
	if c.PollInterval == 0 {
		c.PollInterval = 30 * time.Second
	}
	c.Checks = c.Checks.WithDefaults()
}

func (c *Config) Validate() error { return c.Checks.Validate() }
