package gateway

import (
	"errors"
	"fmt"
	"time"
)

// Config bounds the metered path.
type Config struct {
	// CallTimeout bounds one provider call (GATEWAY_CALL_TIMEOUT, default
	// 60s): past it the call is the provider's timeout (504, health).
	CallTimeout time.Duration
	// StreamTimeout bounds one streamed completion (GATEWAY_STREAM_TIMEOUT,
	// default 10m).
	StreamTimeout time.Duration
	// ReservationTTL is how long a reservation waits for its settle before the
	// sweeper settles it at its full amount as abandoned
	// (GATEWAY_RESERVATION_TTL, default 15m): longer than any call.
	ReservationTTL time.Duration
	// SweepInterval is how often the sweeper looks (GATEWAY_SWEEP_INTERVAL,
	// default 30s; negative: no sweeper).
	SweepInterval time.Duration
	// SweepGrace is how long the sweeper must have reached the database
	// without a failure (since it started leading, or since its last failed
	// sweep) before it abandons an expired reservation
	// (GATEWAY_SWEEP_GRACE, default 30s): after a database outage, every
	// live process first lands the settles it held (landings.go), so an
	// answered call is recorded at its real cost, not at its estimate.
	SweepGrace time.Duration
	// DefaultMaxTokens bounds a completion that names no max_tokens
	// (GATEWAY_DEFAULT_MAX_TOKENS, default 4096), so its reservation is a
	// true upper bound of what it can cost.
	DefaultMaxTokens int
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.CallTimeout == 0 {
		c.CallTimeout = 60 * time.Second
	}
	if c.StreamTimeout == 0 {
		c.StreamTimeout = 10 * time.Minute
	}
	if c.ReservationTTL == 0 {
		c.ReservationTTL = 15 * time.Minute
	}
	if c.SweepInterval == 0 {
		c.SweepInterval = 30 * time.Second
	}
	if c.DefaultMaxTokens == 0 {
		c.DefaultMaxTokens = 4096
	}
	if c.SweepGrace == 0 {
		c.SweepGrace = 30 * time.Second
	}
	return c
}

// Validate names every problem at once.
func (c Config) Validate() error {
	var problems []error
	if c.CallTimeout <= 0 || c.StreamTimeout <= 0 {
		problems = append(problems, errors.New("gateway: call and stream timeouts must be positive"))
	}
	if c.ReservationTTL <= max(c.CallTimeout, c.StreamTimeout) {
		problems = append(problems, errors.New("gateway: the reservation TTL must exceed the call and stream timeouts (a live call would be swept)"))
	}
	if c.SweepGrace < landingMaxBackoff {
		problems = append(problems, fmt.Errorf("gateway: the sweep grace must be at least %s (a held settle's longest wait)", landingMaxBackoff))
	}
	if c.DefaultMaxTokens < 1 || c.DefaultMaxTokens > 32000 {
		problems = append(problems, errors.New("gateway: default max tokens must be 1..32000"))
	}
	return errors.Join(problems...)
}
