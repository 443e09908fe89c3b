// Package app wires the platform together: configuration, the stores, the
// relay, the projection engine, notification delivery and the HTTP services.
// cmd/platformd runs it; integration tests start it in-process.
package app

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/projections"
)

// Services served, each on its own listener. The seeds' other services
// (design, gateway, studio, publishing, contacts, dashboard, agent) follow.
var AllServices = []string{"identity", "status", "ops"}

// DefaultAddrs are the listeners when PLATFORM_<SERVICE>_ADDR is not set.
var DefaultAddrs = map[string]string{
	"identity": "127.0.0.1:8081",
	"status":   "127.0.0.1:8082",
	"ops":      "127.0.0.1:8090",
}

// Config is the whole configuration, one struct per section.
type Config struct {
	DatabaseURL string
	Kafka       eventstore.KafkaConfig
	Relay       eventstore.RelayConfig
	Projections projections.EngineConfig
	Notify      notifications.WebhookConfig
	RateLimit   httpapi.RateLimitConfig
	// HTTP bounds every listener's connections (PLATFORM_HTTP_*: READ_HEADER_TIMEOUT,
	// READ_TIMEOUT, WRITE_TIMEOUT, IDLE_TIMEOUT, MAX_HEADER_BYTES).
	HTTP     httpapi.ServerConfig
	Services []string
	Addrs    map[string]string
	// AuthBaseURL: when set, bearer tokens are validated by that identity
	// service's /validate over HTTP; otherwise in-process, through the same code.
	AuthBaseURL string
	Status      StatusConfig
	Outbound    OutboundConfig // tenant-supplied URLs: config_status.go
	Identity    IdentityConfig
	Access      AccessConfig // identity access half: config_access.go
	// Timers fire durable timers (TIMERS_POLL_INTERVAL); Reactors run the
	// process managers (consumer groups of their own): reactors.go.
	Timers   TimersConfig
	Reactors ReactorsConfig
}

// IdentityConfig: browser sessions and privacy maintenance of the identity service.
type IdentityConfig struct {
	FirstPartyOrigins []string      // CORS + session channel embedding (PLATFORM_FIRST_PARTY_ORIGINS)
	AdminConsoleURL   string        // GET /settings redirects to <it>/security/user (IDENTITY_ADMIN_CONSOLE_URL)
	CookieDomain      string        // refresh cookie domain (IDENTITY_COOKIE_DOMAIN)
	AccessTTL         time.Duration // access token lifetime (IDENTITY_ACCESS_TTL, 15m)
	SessionTTL        time.Duration // refresh lifetime (IDENTITY_SESSION_TTL, 720h)
	PrivacyInterval   time.Duration // maintenance period (IDENTITY_PRIVACY_INTERVAL, 1h); negative disables
}

type StatusConfig struct {
	PublicOrganizationID string        // owner of GET /api/status
	PollInterval         time.Duration // periodic checks; 0 disables the poller
	Checks               StatusChecks  // checks and components per organization: config_status.go
}

// FromEnv reads the environment over the defaults.
func FromEnv() (Config, error) {
	c := Config{
		DatabaseURL: os.Getenv("DATABASE_URL"),
		Kafka: eventstore.KafkaConfig{
			Brokers: splitList(os.Getenv("KAFKA_BROKERS")),
			Topics:  eventstore.Topics{Prefix: os.Getenv("PLATFORM_TOPIC_PREFIX")},
		},
		Notify:      notifications.WebhookConfig{URL: os.Getenv("PLATFORM_NOTIFY_URL")},
		Services:    splitList(os.Getenv("PLATFORM_SERVICES")),
		Addrs:       map[string]string{},
		AuthBaseURL: os.Getenv("AUTH_BASE_URL"),
		Status:      StatusConfig{PublicOrganizationID: os.Getenv("STATUS_PUBLIC_ORGANIZATION_ID")},
		Access:      accessFromEnv(),
		Identity: IdentityConfig{FirstPartyOrigins: splitList(os.Getenv("PLATFORM_FIRST_PARTY_ORIGINS")),
			AdminConsoleURL: os.Getenv("IDENTITY_ADMIN_CONSOLE_URL"), CookieDomain: os.Getenv("IDENTITY_COOKIE_DOMAIN")},
	}
	var errs []error
	if v := os.Getenv("KAFKA_PARTITIONS"); v != "" {
		n, err := strconv.Atoi(v)
		errs = append(errs, err)
		c.Kafka.Partitions = int32(n)
	}
	if v := os.Getenv("RATE_LIMIT_PER_SECOND"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		errs = append(errs, err)
		c.RateLimit.PerSecond = n
	}
	if v := os.Getenv("RATE_LIMIT_ATTEMPTS_PER_MINUTE"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		errs = append(errs, err)
		c.RateLimit.AttemptsPerMinute = n
	}
	if v := os.Getenv("STATUS_POLL_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		errs = append(errs, err)
		c.Status.PollInterval = d
	}
	errs = append(errs, statusFromEnv(&c)...)
	errs = append(errs, timersFromEnv(&c)...)
	for _, s := range AllServices {
		if v := os.Getenv("PLATFORM_" + strings.ToUpper(s) + "_ADDR"); v != "" {
			c.Addrs[s] = v
		}
	}
	if v := os.Getenv("PLATFORM_HTTP_MAX_HEADER_BYTES"); v != "" {
		n, err := strconv.Atoi(v)
		errs = append(errs, err)
		c.HTTP.MaxHeaderBytes = n
	}
	if v := os.Getenv("PLATFORM_HTTP_CHECK_OUTPUT"); v != "" {
		b, err := strconv.ParseBool(v)
		errs = append(errs, err)
		c.HTTP.CheckOutput = b
	}
	for env, d := range map[string]*time.Duration{"IDENTITY_ACCESS_TTL": &c.Identity.AccessTTL,
		"IDENTITY_SESSION_TTL": &c.Identity.SessionTTL, "IDENTITY_PRIVACY_INTERVAL": &c.Identity.PrivacyInterval,
		"PLATFORM_HTTP_READ_HEADER_TIMEOUT": &c.HTTP.ReadHeaderTimeout, "PLATFORM_HTTP_READ_TIMEOUT": &c.HTTP.ReadTimeout,
		"PLATFORM_HTTP_WRITE_TIMEOUT": &c.HTTP.WriteTimeout, "PLATFORM_HTTP_IDLE_TIMEOUT": &c.HTTP.IdleTimeout} {
		if v := os.Getenv(env); v != "" {
			parsed, err := time.ParseDuration(v)
			errs = append(errs, err)
			*d = parsed
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c = c.WithDefaults()
	return c, c.Validate()
}

func (c Config) WithDefaults() Config {
	c.Kafka = c.Kafka.WithDefaults()
	c.Relay = c.Relay.WithDefaults()
	c.Projections.Kafka = c.Kafka
	c.Projections = c.Projections.WithDefaults()
	c.RateLimit = c.RateLimit.WithDefaults()
	c.HTTP = c.HTTP.WithDefaults()
	if len(c.Services) == 0 {
		c.Services = AllServices
	}
	if c.Addrs == nil {
		c.Addrs = map[string]string{}
	}
	for s, a := range DefaultAddrs {
		if c.Addrs[s] == "" {
			c.Addrs[s] = a
		}
	}
	c.Access = c.Access.withDefaults(c.Addrs["identity"])
	if c.Status.PollInterval == 0 {
		c.Status.PollInterval = 30 * time.Second
	}
	if c.Identity.PrivacyInterval == 0 {
		c.Identity.PrivacyInterval = time.Hour
	}
	c.Status.Checks = c.Status.Checks.WithDefaults()
	c.Outbound = c.Outbound.WithDefaults()
	c.Timers = c.Timers.WithDefaults()
	c.Reactors.Kafka = c.Kafka
	c.Reactors = c.Reactors.WithDefaults()
	return c
}

// Validate fails fast with every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("database: DATABASE_URL is required"))
	}
	errs = append(errs, c.Kafka.Validate(), c.Relay.Validate(), c.Projections.Validate(), c.RateLimit.Validate(), c.HTTP.Validate())
	errs = append(errs, c.Status.Checks.Validate(), c.Outbound.Validate(), c.Timers.Validate(), c.Reactors.Validate())
	for _, s := range c.Services {
		if !slices.Contains(AllServices, s) {
			errs = append(errs, fmt.Errorf("services: unknown service %q (known: %s)", s, strings.Join(AllServices, ", ")))
		}
	}
	return errors.Join(errs...)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
