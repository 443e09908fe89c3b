package httpapi

import (
	"errors"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/platform/backend/domain/errs"
)

// RateLimitConfig is the per-credential token bucket.
type RateLimitConfig struct {
	PerSecond float64 // sustained requests per second; default 200
	Burst     int     // default 400
}

func (c RateLimitConfig) WithDefaults() RateLimitConfig {
	if c.PerSecond == 0 {
		c.PerSecond = 200
	}
	if c.Burst == 0 {
		c.Burst = int(2 * c.PerSecond)
	}
	return c
}

func (c RateLimitConfig) Validate() error {
	if c.PerSecond <= 0 || c.Burst < 1 {
		return errors.New("rate limit: per-second rate and burst must be positive")
	}
	return nil
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
