package app

import (
	"os"
	"strconv"
	"time"

	statuscmd "github.com/platform/backend/commands/status"
	"github.com/platform/backend/internal/outbound"
)

// StatusChecks bounds the status service's checks and components per
// organization (STATUS_CHECK_TIMEOUT, STATUS_POLL_WORKERS,
// STATUS_ORG_CONCURRENCY, STATUS_ORG_BUDGET, STATUS_MAX_COMPONENTS,
// STATUS_MANUAL_POLL_INTERVAL); defaults in statuscmd.Config.
type StatusChecks = statuscmd.Config

// OutboundConfig is the client for every tenant-supplied URL
// (OUTBOUND_ALLOW_NETWORKS, OUTBOUND_TIMEOUT, OUTBOUND_MAX_BODY_BYTES,
// OUTBOUND_MAX_REDIRECTS); defaults in outbound.Config.
type OutboundConfig = outbound.Config

// statusFromEnv reads the status checks' and the outbound client's
// variables over c; it returns every parse error.
func statusFromEnv(c *Config) []error {
	var errs []error
	durations := map[string]*time.Duration{
		"STATUS_CHECK_TIMEOUT":        &c.Status.Checks.CheckTimeout,
		"STATUS_ORG_BUDGET":           &c.Status.Checks.OrgBudget,
		"STATUS_MANUAL_POLL_INTERVAL": &c.Status.Checks.ManualPollInterval,
		"OUTBOUND_TIMEOUT":            &c.Outbound.Timeout,
	}
	for env, d := range durations {
		if v := os.Getenv(env); v != "" {
			parsed, err := time.ParseDuration(v)
			errs = append(errs, err)
			*d = parsed
		}
	}
	ints := map[string]*int{
		"STATUS_POLL_WORKERS":    &c.Status.Checks.Workers,
		"STATUS_ORG_CONCURRENCY": &c.Status.Checks.OrgConcurrency,
		"STATUS_MAX_COMPONENTS":  &c.Status.Checks.MaxComponents,
		"OUTBOUND_MAX_REDIRECTS": &c.Outbound.MaxRedirects,
	}
	for env, n := range ints {
		if v := os.Getenv(env); v != "" {
			parsed, err := strconv.Atoi(v)
			errs = append(errs, err)
			*n = parsed
		}
	}
	if v := os.Getenv("OUTBOUND_MAX_BODY_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		errs = append(errs, err)
		c.Outbound.MaxBodyBytes = n
	}
	if v := os.Getenv("OUTBOUND_ALLOW_NETWORKS"); v != "" {
		nets, err := outbound.ParseNetworks(v)
		errs = append(errs, err)
		c.Outbound.AllowNetworks = nets
	}
	return errs
}
