package httpapi

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/platform/backend/domain/errs"
)

// RateLimitConfig is the per-credential token bucket, plus a much smaller
// per-client-address bucket for credential attempts (sign-in, magic links,
// password resets, second factors), where every try is a guess, and one per
// client address for the public routes third parties call without a
// credential (providers' webhooks, OAuth callbacks), where nothing else
// bounds what one address can make the platform do.
type RateLimitConfig struct {
	PerSecond float64 // sustained requests per second; default 200
	Burst     int     // default 400
	// AttemptsPerMinute and AttemptsBurst bound credential attempts per
	// client address; defaults 30 per minute, burst 20.
	AttemptsPerMinute float64
	AttemptsBurst     int
	// InboundPerSecond and InboundBurst bound calls of inbound public routes
	// (webhooks, OAuth callbacks) per client address; defaults 20 per
	// second, burst 40. A provider that meets 429 retries later (every
	// provider the gateway receives from retries a refused webhook).
	InboundPerSecond float64
	InboundBurst     int
}

func (c RateLimitConfig) WithDefaults() RateLimitConfig {
	if c.PerSecond == 0 {
		c.PerSecond = 200
	}
	if c.Burst == 0 {
		c.Burst = int(2 * c.PerSecond)
	}
	if c.AttemptsPerMinute == 0 {
		c.AttemptsPerMinute = 30
	}
	if c.AttemptsBurst == 0 {
		c.AttemptsBurst = 20
	}
	if c.InboundPerSecond == 0 {
		c.InboundPerSecond = 20
	}
	if c.InboundBurst == 0 {
		c.InboundBurst = int(2 * c.InboundPerSecond)
	}
	return c
}

func (c RateLimitConfig) Validate() error {
	if c.PerSecond <= 0 || c.Burst < 1 {
		return errors.New("rate limit: per-second rate and burst must be positive")
	}
	if c.AttemptsPerMinute <= 0 || c.AttemptsBurst < 1 {
		return errors.New("rate limit: credential attempts per minute and their burst must be positive")
	}
	if c.InboundPerSecond <= 0 || c.InboundBurst < 1 {
		return errors.New("rate limit: inbound calls per second and their burst must be positive")
	}
	return nil
}

// NewAttemptLimiter is the credential-attempt limiter of a config.
func NewAttemptLimiter(cfg RateLimitConfig) *Limiter {
	cfg = cfg.WithDefaults()
	return NewLimiter(RateLimitConfig{PerSecond: cfg.AttemptsPerMinute / 60, Burst: cfg.AttemptsBurst})
}

// NewInboundLimiter is the per-address limiter of inbound public routes.
func NewInboundLimiter(cfg RateLimitConfig) *Limiter {
	cfg = cfg.WithDefaults()
	return NewLimiter(RateLimitConfig{PerSecond: cfg.InboundPerSecond, Burst: cfg.InboundBurst})
}

// ClientAddress keys attempt limits: the peer address (a proxy in front
// must be trusted explicitly before a forwarded address may count).
func ClientAddress(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return host
}

// AllowAddress takes one token of the request's client address (a call of
// an inbound route, Deps.Inbound); nil allows all.
func (l *Limiter) AllowAddress(r *http.Request) error {
	if l == nil {
		return nil
	}
	return l.Allow("ip:" + ClientAddress(r))
}

// AllowAttempt takes one credential attempt of the request's client: the
// attempt limiter's AllowAddress, named for what its callers spend.
func (l *Limiter) AllowAttempt(r *http.Request) error { return l.AllowAddress(r) }

// Limiter holds one bucket per credential (or client address for public routes).
type Limiter struct {
	cfg     RateLimitConfig
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	// sweepAt is the number of buckets at which full ones are forgotten:
	// public routes key buckets by any address that calls, so without it
	// the map grows with every address ever seen.
	sweepAt int
}

// minSweep is the bucket count below which nothing is forgotten.
const minSweep = 4096

func NewLimiter(cfg RateLimitConfig) *Limiter {
	return &Limiter{cfg: cfg.WithDefaults(), buckets: map[string]*rate.Limiter{}, sweepAt: minSweep}
}

// Allow takes one token or answers rate_limited with the wait in Retry-After.
func (l *Limiter) Allow(key string) error {
	l.mu.Lock()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= l.sweepAt {
			l.sweep()
		}
		b = rate.NewLimiter(rate.Limit(l.cfg.PerSecond), l.cfg.Burst)
		l.buckets[key] = b
	}
	l.mu.Unlock()
	res := b.Reserve()
	if d := res.Delay(); d > 0 {
		res.Cancel()
		return errs.RateLimited(int(math.Ceil(max(d, time.Second).Seconds())))
	}
	return nil
}

// sweep forgets the buckets that are full again: a new bucket for the same
// key would be the same. The next sweep waits until the map has doubled, so
// a map of busy buckets is not walked on every new key.
func (l *Limiter) sweep() {
	now := time.Now()
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.cfg.Burst) {
			delete(l.buckets, k)
		}
	}
	l.sweepAt = max(minSweep, 2*len(l.buckets))
}
