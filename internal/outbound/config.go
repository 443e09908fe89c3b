// Package outbound is the one HTTP client for every URL a tenant can
// influence (status checks now; webhook targets, OAuth callbacks and
// publishing later). It refuses loopback, private, link-local, metadata and
// other internal addresses at dial time, after DNS and on every redirect, so
// neither a crafted URL nor DNS rebinding reaches the platform's own network;
// it never sends credentials from the URL, bounds time and size, and reports
// failures as a few words (Reason), never raw error text: a tenant must not be
// able to port-scan through it.
package outbound

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Config bounds the client. Zero values take the defaults of WithDefaults.
type Config struct {
	// Timeout bounds a whole exchange: dial, TLS, redirects and reading the
	// body (OUTBOUND_TIMEOUT, default 10s). A caller's context may be shorter.
	Timeout time.Duration
	// MaxBodyBytes bounds the response body kept (OUTBOUND_MAX_BODY_BYTES,
	// default 1 MiB); a longer body is the failure too_large.
	MaxBodyBytes int64
	// MaxHeaderBytes bounds the response header (default 64 KiB).
	MaxHeaderBytes int64
	// MaxRedirects is how many redirects are followed, each re-checked
	// (OUTBOUND_MAX_REDIRECTS, default 5).
	MaxRedirects int
	// AllowNetworks are operator networks that may be reached although they
	// are internal (OUTBOUND_ALLOW_NETWORKS, a comma-separated CIDR list).
	// Empty by default: nothing internal is reachable.
	AllowNetworks []netip.Prefix
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = 64 << 10
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = 5
	}
	return c
}

// Validate names every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.Timeout <= 0 {
		errs = append(errs, errors.New("outbound: timeout must be positive"))
	}
	if c.MaxBodyBytes <= 0 || c.MaxHeaderBytes <= 0 {
		errs = append(errs, errors.New("outbound: body and header limits must be positive"))
	}
	if c.MaxRedirects < 1 || c.MaxRedirects > 20 {
		errs = append(errs, errors.New("outbound: max redirects must be 1..20"))
	}
	for _, p := range c.AllowNetworks {
		switch {
		case !p.IsValid():
			errs = append(errs, fmt.Errorf("outbound: allowed network %v is not a valid CIDR", p))
		case p.Bits() == 0:
			// Allowing everything would silently switch the guard off.
			errs = append(errs, fmt.Errorf("outbound: allowed network %v would allow every address", p))
		}
	}
	return errors.Join(errs...)
}

// ParseNetworks reads a comma-separated list of CIDRs; a bare address is
// its own /32 or /128.
func ParseNetworks(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	var errs []error
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				errs = append(errs, fmt.Errorf("outbound: allowed network %q: %w", part, err))
				continue
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			errs = append(errs, fmt.Errorf("outbound: allowed network %q: %w", part, err))
			continue
		}
		out = append(out, p.Masked())
	}
	return out, errors.Join(errs...)
}
