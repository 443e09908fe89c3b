package status

import (
	"errors"
	"time"
)

// Config bounds what one organization can make the status service do: its
// components and its share of the checks, so one tenant with slow or many
// components cannot stall the poller for every other tenant.
type Config struct {
	// CheckTimeout bounds one check (STATUS_CHECK_TIMEOUT, default 5s).
	CheckTimeout time.Duration
	// Workers is how many checks run at once in a process, over all
	// organizations (STATUS_POLL_WORKERS, default 16).
	Workers int
	// OrgConcurrency is how many checks of one organization run at once
	// (STATUS_ORG_CONCURRENCY, default 4).
	OrgConcurrency int
	// OrgBudget is how long into a poll an organization's checks may still
	// start (STATUS_ORG_BUDGET, default 20s): components not started by then
	// are skipped this round (not recorded, so never counted as failures). A
	// poll of one organization thus ends within OrgBudget + CheckTimeout.
	OrgBudget time.Duration
	// MaxComponents caps an organization's components (STATUS_MAX_COMPONENTS,
	// default 100): registering one more is 409 component_limit_reached.
	MaxComponents int
	// ManualPollInterval is the least time between two POST /poll of one
	// organization (STATUS_MANUAL_POLL_INTERVAL, default 10s; negative: no
	// limit). Too soon is 429 rate_limited with Retry-After.
	ManualPollInterval time.Duration
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.CheckTimeout == 0 {
		c.CheckTimeout = 5 * time.Second
	}
	if c.Workers == 0 {
		c.Workers = 16
	}
	if c.OrgConcurrency == 0 {
		c.OrgConcurrency = 4
	}
	if c.OrgBudget == 0 {
		c.OrgBudget = 20 * time.Second
	}
	if c.MaxComponents == 0 {
		c.MaxComponents = 100
	}
	if c.ManualPollInterval == 0 {
		c.ManualPollInterval = 10 * time.Second
	}
	return c
}

// Validate names every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.CheckTimeout <= 0 || c.OrgBudget <= 0 {
		errs = append(errs, errors.New("status: check timeout and organization budget must be positive"))
	}
	if c.Workers < 1 || c.OrgConcurrency < 1 {
		errs = append(errs, errors.New("status: poll workers and organization concurrency must be at least 1"))
	}
	if c.OrgConcurrency > c.Workers {
		errs = append(errs, errors.New("status: organization concurrency must not exceed the poll workers"))
	}
	if c.MaxComponents < 1 {
		errs = append(errs, errors.New("status: max components must be at least 1"))
	}
	return errors.Join(errs...)
}
