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
// password resets, second factors), where every try is a guess.
type RateLimitConfig struct {
	PerSecond float64 // sustained requests per second; default 200
	Burst     int     // default 400
	// AttemptsPerMinute and AttemptsBurst bound credential attempts per
	// client address; defaults 30 per minute, burst 20.
	AttemptsPerMinute float64
	AttemptsBurst     int
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
	return c
}

func (c RateLimitConfig) Validate() error {
	if c.PerSecond <= 0 || c.Burst < 1 {
		return errors.New("rate limit: per-second rate and burst must be positive")
	}
	if c.AttemptsPerMinute <= 0 || c.AttemptsBurst < 1 {
		return errors.New("rate limit: credential attempts per minute and their burst must be positive")
	}
	return nil
}

// NewAttemptLimiter is the credential-attempt limiter of a config.
func NewAttemptLimiter(cfg RateLimitConfig) *Limiter {
	cfg = cfg.WithDefaults()
	return NewLimiter(RateLimitConfig{PerSecond: cfg.AttemptsPerMinute / 60, Burst: cfg.AttemptsBurst})
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

// AllowAttempt takes one credential attempt of the request's client.
func (l *Limiter) AllowAttempt(r *http.Request) error {
	if l == nil {
		return nil
	}
	return l.Allow("attempt:" + ClientAddress(r))
}

// Limiter holds one bucket per credential (or client address for public routes).
type Limiter struct {
	cfg     RateLimitConfig
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func NewLimiter(cfg RateLimitConfig) *Limiter {
	return &Limiter{cfg: cfg.WithDefaults(), buckets: map[string]*rate.Limiter{}}
}

// Allow takes one token or answers rate_limited with the wait in Retry-After.
func (l *Limiter) Allow(key string) error {
	l.mu.Lock()
	b, ok := l.buckets[key]
	if !ok {
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
