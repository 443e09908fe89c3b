package gateway

import (
	"errors"
	"fmt"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/providers/ai"
)

// Config is the gateway's section.
type Config struct {
	// Metering bounds the metered path (GATEWAY_CALL_TIMEOUT,
	// GATEWAY_STREAM_TIMEOUT, GATEWAY_RESERVATION_TTL,
	// GATEWAY_SWEEP_INTERVAL, GATEWAY_SWEEP_GRACE, GATEWAY_DEFAULT_MAX_TOKENS).
	Metering gatewaycmd.Config
	// DashboardURL is where notifications' cta_url point
	// (GATEWAY_DASHBOARD_URL; default the gateway's own base URL).
	DashboardURL string
	// Sandbox serves AI calls without a key of the organization's from the
	// in-process fake providers, marked sandbox (GATEWAY_SANDBOX; make run
	// sets it).
	Sandbox bool
	// SandboxDelay paces the sandbox's streams: the time between two deltas
	// (GATEWAY_SANDBOX_DELAY, default 0: as fast as they go), so a demo or a
	// crash test sees a stream in flight.
	SandboxDelay time.Duration
	// Providers are the platform's own keys per AI provider
	// (GATEWAY_AI_PROVIDER_<N>_KEY, GATEWAY_AI_PROVIDER_<N>_BASE_URL,
	// GATEWAY_AI_PROVIDER_<N>_ACCOUNT for Workers AI): a provider with a key
	// is served by the platform's connection.
	Providers map[ai.ProviderID]ProviderConfig
	// Edge is the gateway's edge: sends, relays,
	// the expiry scan, the canary, the platform's keys (edge_config.go).
	Edge EdgeSection
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Duration("GATEWAY_CALL_TIMEOUT", &c.Metering.CallTimeout)
	env.Duration("GATEWAY_STREAM_TIMEOUT", &c.Metering.StreamTimeout)
	env.Duration("GATEWAY_RESERVATION_TTL", &c.Metering.ReservationTTL)
	env.Duration("GATEWAY_SWEEP_INTERVAL", &c.Metering.SweepInterval)
	env.Duration("GATEWAY_SWEEP_GRACE", &c.Metering.SweepGrace)
	env.Int("GATEWAY_DEFAULT_MAX_TOKENS", &c.Metering.DefaultMaxTokens)
	env.String("GATEWAY_DASHBOARD_URL", &c.DashboardURL)
	env.Bool("GATEWAY_SANDBOX", &c.Sandbox)
	env.Duration("GATEWAY_SANDBOX_DELAY", &c.SandboxDelay)
	for i, info := range ai.Providers() {
		pc := c.Providers[info.ID]
		env.String(fmt.Sprintf("GATEWAY_AI_PROVIDER_%d_KEY", i+1), &pc.Key)
		env.String(fmt.Sprintf("GATEWAY_AI_PROVIDER_%d_BASE_URL", i+1), &pc.BaseURL)
		env.String(fmt.Sprintf("GATEWAY_AI_PROVIDER_%d_ACCOUNT", i+1), &pc.Account)
		if pc != (ProviderConfig{}) {
			if c.Providers == nil {
				c.Providers = map[ai.ProviderID]ProviderConfig{}
			}
			c.Providers[info.ID] = pc
		}
	}
	edgeErr := c.Edge.fromEnv(env, getenv)
	return errors.Join(env.Err(), edgeErr)
}

func (c *Config) Defaults() {
	c.Metering = c.Metering.WithDefaults()
	c.Edge.defaults(c.Sandbox)
}

func (c *Config) Validate() error {
	problems := []error{c.Metering.Validate(), c.Edge.validate()}
	problems = append(problems, text.URLSetting("gateway: GATEWAY_DASHBOARD_URL", c.DashboardURL, text.URLRules{}))
	for id, pc := range c.Providers {
		if pc.BaseURL != "" {
			if _, problem := text.ParseURL(pc.BaseURL, text.URLRules{}); problem != "" {
				problems = append(problems, fmt.Errorf("gateway: the base URL of %s %s", id, problem))
			}
		}
	}
	return errors.Join(problems...)
}
