package publishing

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	pubcmd "github.com/platform/backend/commands/publishing"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/internal/module"
)

// Config is the publishing service's section.
type Config struct {
	// PublicURL is the service's public base URL: OAuth callbacks are
	// <PublicURL>/api/integrations/<platform>/callback
	// (PUBLISHING_PUBLIC_URL; default http://<listener>).
	PublicURL string
	// LegacyTokenKey opens tokens publishing sealed with its own key before
	// the gateway's key ring sealed them: 32 bytes, base64
	// (PUBLISHING_TOKEN_KEY; without it, the development key kept in the
	// database, if any). It never seals; once the re-seal sweep has moved
	// every token to the ring it can be removed.
	LegacyTokenKey []byte
	Production     bool // PLATFORM_ENV=production
	// Sandbox starts a local fake of every network that has an adapter and
	// no configured client, on loopback (PUBLISHING_SANDBOX; make run and
	// the tests turn it on).
	Sandbox bool
	// Networks are the configured network clients, by network name
	// (PUBLISHING_NETWORK_<N>_BASE_URL, _CLIENT_ID, _CLIENT_SECRET).
	Networks map[string]NetworkConfig
	// Publisher: PUBLISHING_SEND_TIMEOUT (8s), PUBLISHING_CLAIM_LEASE (2m),
	// PUBLISHING_MAX_ATTEMPTS (3 per item, the first included),
	// PUBLISHING_RETRY_BACKOFF (30s, doubling), PUBLISHING_RETRY_MAX_BACKOFF (15m).
	Publisher pubcmd.PublisherConfig
	// RefreshInterval is how often expiring tokens are renewed
	// (PUBLISHING_REFRESH_INTERVAL, 1m; negative: never).
	RefreshInterval time.Duration
}

// NetworkConfig is one network's client.
type NetworkConfig struct {
	// BaseURL points every endpoint of the network at one address (a fake,
	// a sandbox); empty: the network's real hosts.
	BaseURL      string
	ClientID     string
	ClientSecret string
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.String("PUBLISHING_PUBLIC_URL", &c.PublicURL)
	// Read apart: module.Env quotes a refused value in its error, and this
	// one is a key.
	var keyErr error
	if v := getenv("PUBLISHING_TOKEN_KEY"); v != "" {
		if c.LegacyTokenKey, keyErr = base64.StdEncoding.DecodeString(v); keyErr != nil {
			keyErr = errors.New("PUBLISHING_TOKEN_KEY: not standard base64")
		}
	}
	env.Parse("PLATFORM_ENV", func(v string) error { c.Production = strings.EqualFold(v, "production"); return nil })
	env.Bool("PUBLISHING_SANDBOX", &c.Sandbox)
	env.Duration("PUBLISHING_SEND_TIMEOUT", &c.Publisher.SendTimeout)
	env.Duration("PUBLISHING_CLAIM_LEASE", &c.Publisher.ClaimLease)
	env.Int("PUBLISHING_MAX_ATTEMPTS", &c.Publisher.MaxAttempts)
	env.Duration("PUBLISHING_RETRY_BACKOFF", &c.Publisher.RetryBackoff)
	env.Duration("PUBLISHING_RETRY_MAX_BACKOFF", &c.Publisher.RetryMaxBackoff)
	env.Duration("PUBLISHING_REFRESH_INTERVAL", &c.RefreshInterval)
	for i, name := range domain.Networks {
		prefix := fmt.Sprintf("PUBLISHING_NETWORK_%d_", i+1)
		n := c.Networks[name]
		env.String(prefix+"BASE_URL", &n.BaseURL)
		env.String(prefix+"CLIENT_ID", &n.ClientID)
		env.String(prefix+"CLIENT_SECRET", &n.ClientSecret)
		if n != (NetworkConfig{}) {
			if c.Networks == nil {
				c.Networks = map[string]NetworkConfig{}
			}
			c.Networks[name] = n
		}
	}
	return errors.Join(env.Err(), keyErr)
}

func (c *Config) Defaults() {
	c.Publisher = c.Publisher.WithDefaults()
	if c.RefreshInterval == 0 {
		c.RefreshInterval = time.Minute
	}
}

func (c *Config) Validate() error {
	var errs []error
	p := c.Publisher
	if p.SendTimeout <= 0 || p.ClaimLease <= p.SendTimeout {
		errs = append(errs, errors.New("publishing: PUBLISHING_SEND_TIMEOUT must be positive and below PUBLISHING_CLAIM_LEASE"))
	}
	if p.MaxAttempts < 1 || p.Parallel < 1 {
		errs = append(errs, errors.New("publishing: PUBLISHING_MAX_ATTEMPTS and the sends in parallel must be at least 1"))
	}
	if p.RetryBackoff <= 0 || p.RetryMaxBackoff < p.RetryBackoff {
		errs = append(errs, errors.New("publishing: PUBLISHING_RETRY_BACKOFF must be positive and at most PUBLISHING_RETRY_MAX_BACKOFF"))
	}
	if c.LegacyTokenKey != nil && len(c.LegacyTokenKey) != 32 {
		errs = append(errs, errors.New("publishing: PUBLISHING_TOKEN_KEY must be 32 bytes (base64)"))
	}
	// The OAuth callbacks are <it>/api/integrations/<platform>/callback.
	errs = append(errs, text.URLSetting("publishing: PUBLISHING_PUBLIC_URL", c.PublicURL, text.URLRules{NoQuery: true, NoFragment: true}))
	if c.Production && c.Sandbox {
		errs = append(errs, errors.New("publishing: PUBLISHING_SANDBOX is for development, not production"))
	}
	return errors.Join(errs...)
}
