package studio

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	studiocmd "github.com/platform/backend/commands/studio"
	"github.com/platform/backend/internal/module"
)

// Config is the studio's section.
type Config struct {
	// Commands bound assets, previews and quotas (STUDIO_ASSET_MAX_BYTES,
	// STUDIO_PREVIEW_KEY, STUDIO_PREVIEW_TTL, STUDIO_QUOTA_RENDERS,
	// STUDIO_QUOTA_GENERATIONS, STUDIO_QUOTA_WARNING_PERCENT).
	Commands studiocmd.Config
	// Production (PLATFORM_ENV=production) needs a preview key: without one a
	// random key is made at start, and preview links die with the process
	// (and are not shared between processes).
	Production bool
	// Jobs tune the render and generation jobs (STUDIO_RENDER_CONCURRENCY,
	// STUDIO_GENERATION_CONCURRENCY, STUDIO_JOB_LEASE, STUDIO_JOB_MAX_ATTEMPTS,
	// STUDIO_JOB_RETRY_BACKOFF; FFMPEG, FFPROBE).
	Jobs studiocmd.JobsConfig
	// SweepInterval drains the object deletions a crash left behind
	// (STUDIO_SWEEP_INTERVAL, default 1m; negative: never).
	SweepInterval time.Duration
	// generatedKey: the key was made at start (a warning is logged).
	generatedKey bool
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Int64("STUDIO_ASSET_MAX_BYTES", &c.Commands.AssetMaxBytes)
	env.Duration("STUDIO_PREVIEW_TTL", &c.Commands.PreviewTTL)
	env.Int("STUDIO_QUOTA_RENDERS", &c.Commands.RenderQuota)
	env.Int("STUDIO_QUOTA_GENERATIONS", &c.Commands.GenerationQuota)
	env.Int("STUDIO_QUOTA_WARNING_PERCENT", &c.Commands.QuotaWarningPercent)
	env.Duration("STUDIO_SWEEP_INTERVAL", &c.SweepInterval)
	env.Int("STUDIO_RENDER_CONCURRENCY", &c.Jobs.RenderConcurrency)
	env.Int("STUDIO_GENERATION_CONCURRENCY", &c.Jobs.GenerationConcurrency)
	env.Duration("STUDIO_JOB_LEASE", &c.Jobs.Lease)
	env.Int("STUDIO_JOB_MAX_ATTEMPTS", &c.Jobs.MaxAttempts)
	env.Duration("STUDIO_JOB_RETRY_BACKOFF", &c.Jobs.RetryBackoff)
	env.Parse("STUDIO_PREVIEW_KEY", func(v string) (err error) { c.Commands.PreviewKey, err = decodeKey(v); return err })
	env.Parse("PLATFORM_ENV", func(v string) error { c.Production = strings.EqualFold(v, "production"); return nil })
	return env.Err()
}

// decodeKey reads a key written in hex or base64 (standard or URL alphabet).
func decodeKey(v string) ([]byte, error) {
	v = strings.TrimSpace(v)
	if b, err := hex.DecodeString(v); err == nil {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(v); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("a key is hex or base64")
}

func (c *Config) Defaults() {
	c.Commands = c.Commands.WithDefaults()
	c.Jobs = c.Jobs.WithDefaults()
	if c.SweepInterval == 0 {
		c.SweepInterval = time.Minute
	}
	if c.Commands.PreviewKey == nil && !c.Production {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err == nil {
			c.Commands.PreviewKey, c.generatedKey = key, true
		}
	}
}

func (c *Config) Validate() error {
	var problems []error
	if c.Commands.PreviewKey == nil {
		problems = append(problems, errors.New("STUDIO_PREVIEW_KEY is required in production (32 bytes or more, hex or base64)"))
	}
	return errors.Join(append(problems, c.Commands.Validate(), c.Jobs.Validate())...)
}
