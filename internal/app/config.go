// Package app wires the platform together: the platform-wide configuration,
// the stores, the relay, the projection engine, notification delivery,
// timers and reactors, and the modules of internal/modules (each context's
// own configuration section, projections, mappers, reactors, timers, service
// and workers). It knows nothing of any one context. cmd/platformd runs it;
// integration tests start it in-process.
package app

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/modules"
	"github.com/platform/backend/internal/objectstore"
	"github.com/platform/backend/internal/outbound"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/projections"
)

// Config is the whole configuration: one struct per platform-wide section,
// and every module's own section in Modules.
type Config struct {
	DatabaseURL string
	Kafka       eventstore.KafkaConfig
	Relay       eventstore.RelayConfig
	Projections projections.EngineConfig
	Notify      notifications.WebhookConfig
	RateLimit   httpapi.RateLimitConfig
	// HTTP bounds every listener's connections (PLATFORM_HTTP_*: READ_HEADER_TIMEOUT,
	// READ_TIMEOUT, WRITE_TIMEOUT, IDLE_TIMEOUT, MAX_HEADER_BYTES).
	HTTP httpapi.ServerConfig
	// Services are the listeners this process serves (PLATFORM_SERVICES;
	// default every module's service and job workers, Listeners). A
	// context's job workers run only where "<context>-jobs" is listed; a
	// process that lists nothing else runs only them (and their timers):
	// no relay, projections, reactors or module workers. Otherwise every
	// module is built and runs its workers whatever this says.
	Services []string
	// Addrs are the listeners by service (PLATFORM_<SERVICE>_ADDR; default
	// the module's DefaultAddr, on ListenHost when that is set).
	Addrs map[string]string
	// ListenHost replaces the host of every default listener
	// (PLATFORM_LISTEN_HOST, e.g. 0.0.0.0 in a container; default loopback).
	ListenHost string
	// AuthBaseURL: when set, bearer tokens are validated by that identity
	// service's /validate over HTTP; otherwise in-process, through the same code.
	AuthBaseURL string
	// FirstPartyOrigins may call every service from a browser with
	// credentials (PLATFORM_FIRST_PARTY_ORIGINS; CORS, session channel embedding).
	FirstPartyOrigins []string
	// Outbound is the client for every tenant-supplied URL
	// (OUTBOUND_ALLOW_NETWORKS, OUTBOUND_TIMEOUT, OUTBOUND_MAX_BODY_BYTES,
	// OUTBOUND_MAX_REDIRECTS).
	Outbound outbound.Config
	// Objects is the object store every module uses (OBJECTSTORE_URL,
	// OBJECTSTORE_SIGNING_KEY, OBJECTSTORE_PUBLIC_URL (default: the first
	// service's listener + /objects, served by every service),
	// OBJECTSTORE_MAX_OBJECT_BYTES, PLATFORM_DATA_DIR, PLATFORM_ENV).
	Objects objectstore.Config
	// KeyRing seals every context's secrets at rest (PLATFORM_KEYRING,
	// PLATFORM_KEYRING_ACTIVE, PLATFORM_KEYRING_SANDBOX; the gateway's
	// former GATEWAY_KEYRING names are still read: internal/keyring).
	KeyRing keyring.Config
	// Timers fire durable timers (TIMERS_POLL_INTERVAL, TIMERS_LEASE);
	// Reactors run the process managers (consumer groups of their own).
	Timers   timers.Config
	Reactors reactor.Config
	// Jobs tunes the job workers (JOBS_READ_AHEAD).
	Jobs jobs.Config
	// Modules are the modules' own sections (module.SectionOf reads one).
	Modules module.Sections
}

// Modules are the platform's contexts (internal/modules).
func Modules() []module.Module { return modules.All() }

// Services are the names of the modules' services, in module order.
func Services() []string {
	var out []string
	for _, m := range Modules() {
		if m.Service != nil {
			out = append(out, m.Service.Name)
		}
	}
	return out
}

// Workers are the names of the modules' job workers ("<context>-jobs"), in
// module order: services of their own in PLATFORM_SERVICES, each with a
// liveness listener.
func Workers() []string {
	var out []string
	for _, m := range Modules() {
		if m.Jobs != nil {
			out = append(out, module.JobsService(m.Name))
		}
	}
	return out
}

// Listeners are every service and job worker a process may run
// (PLATFORM_SERVICES), services first.
func Listeners() []string { return append(Services(), Workers()...) }

// IsWorker tells a job workers' name from a service's.
func IsWorker(name string) bool { return slices.Contains(Workers(), name) }

// AddrEnv is the variable of a listener's address: PLATFORM_STATUS_ADDR,
// PLATFORM_PUBLISHING_JOBS_ADDR.
func AddrEnv(name string) string {
	return "PLATFORM_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + "_ADDR"
}

// HealthPath is a listener's liveness route, as its module declares it
// (job workers: GET /health).
func HealthPath(name string) string {
	if IsWorker(name) {
		return WorkerHealthPath
	}
	for _, m := range Modules() {
		if m.Service != nil && m.Service.Name == name && m.Service.HealthPath != "" {
			return m.Service.HealthPath
		}
	}
	return httpapi.DefaultHealthPath
}

// WorkerHealthPath is the job workers' liveness route (seed 002's "jobs
// (queue consumer, liveness GET /health)").
const WorkerHealthPath = "/health"

// defaultAddr is a listener's default address.
func defaultAddr(name string) string {
	for _, m := range Modules() {
		if m.Service != nil && m.Service.Name == name {
			return m.Service.DefaultAddr
		}
		if m.Jobs != nil && module.JobsService(m.Name) == name {
			return m.Jobs.DefaultAddr
		}
	}
	return ""
}

// NewConfig is the configuration with nothing set: every module's section
// exists, empty. WithDefaults fills it.
func NewConfig() Config {
	return Config{Addrs: map[string]string{}, Modules: module.NewSections(Modules())}
}

// FromEnv reads the environment over the defaults.
func FromEnv() (Config, error) {
	c := NewConfig()
	c.DatabaseURL = os.Getenv("DATABASE_URL")
	c.Notify.URL = os.Getenv("PLATFORM_NOTIFY_URL")
	c.AuthBaseURL = os.Getenv("AUTH_BASE_URL")
	env := module.NewEnv(os.Getenv)
	env.List("KAFKA_BROKERS", &c.Kafka.Brokers)
	env.String("PLATFORM_TOPIC_PREFIX", &c.Kafka.Topics.Prefix)
	env.Parse("KAFKA_PARTITIONS", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 32) // the whole value: fmt.Sscan took "3.5" as 3
		c.Kafka.Partitions = int32(n)
		return err
	})
	env.Int("PLATFORM_NOTIFY_CONCURRENCY", &c.Notify.Concurrency)
	env.List("PLATFORM_SERVICES", &c.Services)
	env.String("PLATFORM_LISTEN_HOST", &c.ListenHost)
	env.List("PLATFORM_FIRST_PARTY_ORIGINS", &c.FirstPartyOrigins)
	env.Float("RATE_LIMIT_PER_SECOND", &c.RateLimit.PerSecond)
	env.Float("RATE_LIMIT_ATTEMPTS_PER_MINUTE", &c.RateLimit.AttemptsPerMinute)
	env.Float("RATE_LIMIT_INBOUND_PER_SECOND", &c.RateLimit.InboundPerSecond)
	env.Int("RATE_LIMIT_INBOUND_BURST", &c.RateLimit.InboundBurst)
	env.Int("PLATFORM_HTTP_MAX_HEADER_BYTES", &c.HTTP.MaxHeaderBytes)
	env.Bool("PLATFORM_HTTP_CHECK_OUTPUT", &c.HTTP.CheckOutput)
	env.Duration("PLATFORM_HTTP_READ_HEADER_TIMEOUT", &c.HTTP.ReadHeaderTimeout)
	env.Duration("PLATFORM_HTTP_READ_TIMEOUT", &c.HTTP.ReadTimeout)
	env.Duration("PLATFORM_HTTP_WRITE_TIMEOUT", &c.HTTP.WriteTimeout)
	env.Duration("PLATFORM_HTTP_IDLE_TIMEOUT", &c.HTTP.IdleTimeout)
	env.Duration("OUTBOUND_TIMEOUT", &c.Outbound.Timeout)
	env.Int("OUTBOUND_MAX_REDIRECTS", &c.Outbound.MaxRedirects)
	env.Int64("OUTBOUND_MAX_BODY_BYTES", &c.Outbound.MaxBodyBytes)
	env.Parse("OUTBOUND_ALLOW_NETWORKS", func(v string) (err error) {
		c.Outbound.AllowNetworks, err = outbound.ParseNetworks(v)
		return err
	})
	env.Duration("TIMERS_POLL_INTERVAL", &c.Timers.PollInterval)
	env.Duration("TIMERS_LEASE", &c.Timers.Lease)
	env.Int("TIMERS_CONCURRENCY", &c.Timers.Concurrency)
	env.Int("JOBS_READ_AHEAD", &c.Jobs.ReadAhead)
	for _, s := range Listeners() {
		env.Parse(AddrEnv(s), func(v string) error { c.Addrs[s] = v; return nil })
	}
	objects, objErr := objectstore.FromEnv()
	c.Objects = objects
	ringErr := c.KeyRing.FromEnv(os.Getenv)
	if err := errors.Join(env.Err(), objErr, ringErr, c.Modules.FromEnv(os.Getenv)); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c = c.WithDefaults()
	return c, c.Validate()
}

// WithDefaults fills what is unset, in every section.
func (c Config) WithDefaults() Config {
	c.Kafka = c.Kafka.WithDefaults()
	c.Relay = c.Relay.WithDefaults()
	c.Projections.Kafka = c.Kafka
	c.Projections = c.Projections.WithDefaults()
	c.RateLimit = c.RateLimit.WithDefaults()
	c.HTTP = c.HTTP.WithDefaults()
	if len(c.Services) == 0 {
		c.Services = Listeners()
	}
	if c.Addrs == nil {
		c.Addrs = map[string]string{}
	}
	for _, name := range Listeners() {
		if c.Addrs[name] == "" {
			c.Addrs[name] = defaultAddr(name)
			if _, port, err := net.SplitHostPort(c.Addrs[name]); err == nil && c.ListenHost != "" {
				c.Addrs[name] = net.JoinHostPort(c.ListenHost, port)
			}
		}
	}
	if len(c.FirstPartyOrigins) == 0 {
		c.FirstPartyOrigins = httpapi.DefaultFirstPartyOrigins
	}
	if c.Objects.PublicURL == "" && !c.Objects.Production && len(Services()) > 0 {
		// Signed URLs of the local store are served by every service's
		// listener; the first one's is as good as any (a process of job
		// workers only points at the first service's default). Not in
		// production, where the store requires OBJECTSTORE_PUBLIC_URL (a
		// listener's address is not what clients reach).
		first := Services()[0]
		if i := slices.IndexFunc(c.Services, func(s string) bool { return !IsWorker(s) }); i >= 0 {
			first = c.Services[i]
		}
		c.Objects.PublicURL = module.LocalURL(c.Addrs[first]) + "/objects"
	}
	c.Objects = c.Objects.WithDefaults()
	c.Outbound = c.Outbound.WithDefaults()
	c.KeyRing = c.KeyRing.WithDefaults()
	c.Timers = c.Timers.WithDefaults()
	c.Reactors.Kafka = c.Kafka
	c.Reactors = c.Reactors.WithDefaults()
	c.Jobs.Kafka = c.Kafka
	c.Jobs = c.Jobs.WithDefaults()
	if c.Modules == nil {
		c.Modules = module.NewSections(Modules())
	}
	c.Modules.Defaults()
	return c
}

// Validate fails fast with every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("database: DATABASE_URL is required"))
	}
	errs = append(errs, c.Kafka.Validate(), c.Relay.Validate(), c.Projections.Validate(), c.RateLimit.Validate(), c.HTTP.Validate())
	errs = append(errs, c.Objects.Validate(), c.Outbound.Validate(), c.KeyRing.Validate(), c.Timers.Validate(), c.Reactors.Validate(),
		c.Jobs.Validate(), c.Modules.Validate(), c.Notify.Validate())
	if strings.HasPrefix(c.Objects.URL, "file:") && c.Objects.PublicURL != "" {
		if u, err := url.Parse(c.Objects.PublicURL); err == nil && strings.Trim(u.Path, "/") == "" {
			errs = append(errs, fmt.Errorf("objectstore: OBJECTSTORE_PUBLIC_URL %q needs a path (such as /objects): the local store's signed URLs are served beside every service's routes", c.Objects.PublicURL))
		}
	}
	known := Listeners()
	for _, s := range c.Services {
		if !slices.Contains(known, s) {
			errs = append(errs, fmt.Errorf("services: unknown service %q (known: %s)", s, strings.Join(known, ", ")))
		}
	}
	for _, m := range Modules() {
		if err := m.Check(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
