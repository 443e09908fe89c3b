package gateway

import (
	"errors"
	"net/url"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/internal/module"
)

// Config is the gateway's section.
type Config struct {
	// Metering bounds the metered path (GATEWAY_CALL_TIMEOUT,
	// GATEWAY_STREAM_TIMEOUT, GATEWAY_RESERVATION_TTL,
	// GATEWAY_SWEEP_INTERVAL, GATEWAY_DEFAULT_MAX_TOKENS).
	Metering gatewaycmd.Config
	// DashboardURL is where notifications' cta_url point
	// (GATEWAY_DASHBOARD_URL; default the gateway's own base URL).
	DashboardURL string
	// Sandbox serves AI calls without a key of the organization's from the
	// in-process fake providers, marked sandbox (GATEWAY_SANDBOX; make run
	// sets it).
	Sandbox bool
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Duration("GATEWAY_CALL_TIMEOUT", &c.Metering.CallTimeout)
	env.Duration("GATEWAY_STREAM_TIMEOUT", &c.Metering.StreamTimeout)
	env.Duration("GATEWAY_RESERVATION_TTL", &c.Metering.ReservationTTL)
	env.Duration("GATEWAY_SWEEP_INTERVAL", &c.Metering.SweepInterval)
	env.Int("GATEWAY_DEFAULT_MAX_TOKENS", &c.Metering.DefaultMaxTokens)
	env.String("GATEWAY_DASHBOARD_URL", &c.DashboardURL)
	env.Bool("GATEWAY_SANDBOX", &c.Sandbox)
	return env.Err()
}

func (c *Config) Defaults() { c.Metering = c.Metering.WithDefaults() }

func (c *Config) Validate() error {
	problems := []error{c.Metering.Validate()}
	if c.DashboardURL != "" {
		if u, err := url.Parse(c.DashboardURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, errors.New("gateway: GATEWAY_DASHBOARD_URL must be an absolute http(s) URL"))
		}
	}
	return errors.Join(problems...)
}
