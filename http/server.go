package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/platform/backend/projections"
)

// ServerConfig bounds what one client can hold on a listener: without these
// a client that declares a body and never sends it keeps a connection and a
// goroutine forever (public routes included).
type ServerConfig struct {
	// ReadHeaderTimeout: the request line and headers (default 10s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout: the whole request, body included (default 30s; bodies are
	// at most 1 MiB). A body still arriving then is cut: 408 request_timeout.
	ReadTimeout time.Duration
	// WriteTimeout runs from the end of the headers to the end of the answer,
	// so it covers the body read, the handler (a read-your-writes wait of up to
	// projections.MaxWait included) and the write (default 60s).
	WriteTimeout time.Duration
	// IdleTimeout: a kept-alive connection between requests (default 120s).
	IdleTimeout time.Duration
	// MaxHeaderBytes: a larger request line and header block is answered 431
	// request_header_too_large as a problem (default 64 KiB). net/http itself
	// refuses twice this (plus its 4 KiB slack) with a plain-text 431 before any
	// handler runs: that answer cannot be a problem (docs/decisions.md).
	MaxHeaderBytes int
	// CheckOutput: every success answer of an action is validated against
	// the action's output schema (Deps.CheckOutput); a debug check for tests
	// and the fuzzing gate (PLATFORM_HTTP_CHECK_OUTPUT=1), off in production.
	CheckOutput bool
}

// WithDefaults fills what is not set.
func (c ServerConfig) WithDefaults() ServerConfig {
	if c.ReadHeaderTimeout == 0 {
		c.ReadHeaderTimeout = 10 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 60 * time.Second
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 120 * time.Second
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = 64 << 10
	}
	return c
}

// Validate refuses bounds that would cut answers the platform promises.
func (c ServerConfig) Validate() error {
	var errs []error
	if c.ReadHeaderTimeout <= 0 || c.ReadTimeout <= 0 || c.WriteTimeout <= 0 || c.IdleTimeout <= 0 {
		errs = append(errs, errors.New("http: read header, read, write and idle timeouts must be positive"))
	}
	if c.ReadHeaderTimeout > c.ReadTimeout {
		errs = append(errs, fmt.Errorf("http: the read header timeout %s exceeds the read timeout %s", c.ReadHeaderTimeout, c.ReadTimeout))
	}
	// The write deadline starts when the headers are in: a body that takes the
	// whole read timeout plus a full read-your-writes wait must still be answered.
	if c.WriteTimeout <= c.ReadTimeout+projections.MaxWait {
		errs = append(errs, fmt.Errorf("http: the write timeout %s must exceed the read timeout %s plus the read-your-writes wait %s",
			c.WriteTimeout, c.ReadTimeout, projections.MaxWait))
	}
	if c.MaxHeaderBytes < 4<<10 || c.MaxHeaderBytes > http.DefaultMaxHeaderBytes {
		errs = append(errs, fmt.Errorf("http: max header bytes %d outside 4 KiB..1 MiB", c.MaxHeaderBytes))
	}
	return errors.Join(errs...)
}

// Configure applies the bounds to a listener's server (platformd's and the
// test harness's alike).
func (c ServerConfig) Configure(s *http.Server) {
	c = c.WithDefaults()
	s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout = c.ReadHeaderTimeout, c.ReadTimeout, c.WriteTimeout, c.IdleTimeout
	// Headers between MaxHeaderBytes and this hard limit reach withHeaderLimit,
	// which answers a problem; only larger ones get net/http's own text answer.
	s.MaxHeaderBytes = 2 * c.MaxHeaderBytes
}
