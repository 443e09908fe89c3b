package identity

import (
	"errors"
	"strings"
	"time"

	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/providers/email"
)

// Config is the identity service's section: browser sessions, magic links,
// the email provider, privacy maintenance.
type Config struct {
	AdminConsoleURL string        // GET /settings redirects to <it>/security/user (IDENTITY_ADMIN_CONSOLE_URL)
	CookieDomain    string        // refresh cookie domain (IDENTITY_COOKIE_DOMAIN)
	AccessTTL       time.Duration // access token lifetime (IDENTITY_ACCESS_TTL, 15m)
	SessionTTL      time.Duration // refresh lifetime (IDENTITY_SESSION_TTL, 720h)
	// PrivacyInterval is the maintenance period (IDENTITY_PRIVACY_INTERVAL,
	// 1h); negative disables the schedule (platformctl privacy-maintenance
	// still runs it).
	PrivacyInterval time.Duration
	// PublicURL is the identity service's browser-facing base URL; magic
	// links point at it (IDENTITY_PUBLIC_URL; default http://<identity addr>,
	// on loopback when the listener is on every interface).
	PublicURL string
	// AppsBaseURL is where first-party app entrypoints live in the catalog
	// (PLATFORM_APPS_BASE_URL; default http://127.0.0.1:3000).
	AppsBaseURL string
	// SMTP: when SMTP_ADDR is set, email goes through that server
	// (SMTP_FROM, SMTP_USERNAME, SMTP_PASSWORD); otherwise the sandbox
	// provider keeps messages in memory and logs that it did.
	SMTP email.SMTP
	// HeadWatch serves validation's stream heads from memory, coherent by
	// LISTEN/NOTIFY: a revocation, logout or role change applies on every
	// process within HeadWatch.Bound (IDENTITY_HEAD_WATCH_BOUND, 100ms);
	// negative (-1s) reads the heads from the database on every validation.
	// The gateway keeps the connection in use on the same watch and bound.
	HeadWatch eventstore.HeadWatchConfig
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.String("IDENTITY_ADMIN_CONSOLE_URL", &c.AdminConsoleURL)
	env.String("IDENTITY_COOKIE_DOMAIN", &c.CookieDomain)
	env.Duration("IDENTITY_ACCESS_TTL", &c.AccessTTL)
	env.Duration("IDENTITY_SESSION_TTL", &c.SessionTTL)
	env.Duration("IDENTITY_PRIVACY_INTERVAL", &c.PrivacyInterval)
	env.String("IDENTITY_PUBLIC_URL", &c.PublicURL)
	env.String("PLATFORM_APPS_BASE_URL", &c.AppsBaseURL)
	env.Duration("IDENTITY_HEAD_WATCH_BOUND", &c.HeadWatch.Bound)
	env.String("SMTP_ADDR", &c.SMTP.Addr)
	env.String("SMTP_FROM", &c.SMTP.From)
	env.String("SMTP_USERNAME", &c.SMTP.Username)
	env.String("SMTP_PASSWORD", &c.SMTP.Password)
	return env.Err()
}

func (c *Config) Defaults() {
	if c.PrivacyInterval == 0 {
		c.PrivacyInterval = time.Hour
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if c.AppsBaseURL == "" {
		c.AppsBaseURL = "http://127.0.0.1:3000"
	}
	if c.SMTP.Addr != "" && c.SMTP.From == "" {
		c.SMTP.From = "noreply@platform.local"
	}
	if c.HeadWatch.Bound >= 0 {
		c.HeadWatch.Defaults()
	}
	if c.SMTP.Timeout == 0 {
		c.SMTP.Timeout = 10 * time.Second
	}
}

// Validate checks the URL settings: each is a base that paths are appended
// to (magic links, the settings redirect, app entrypoints), so it carries no
// query or fragment.
func (c *Config) Validate() error {
	base := text.URLRules{NoQuery: true, NoFragment: true}
	return errors.Join(
		text.URLSetting("IDENTITY_PUBLIC_URL", c.PublicURL, base),
		text.URLSetting("IDENTITY_ADMIN_CONSOLE_URL", c.AdminConsoleURL, base),
		text.URLSetting("PLATFORM_APPS_BASE_URL", c.AppsBaseURL, base))
}
