// Package module is what a bounded context brings to the platform, declared
// in one place: its migrations, its topic, its configuration section, its
// app in the identity service's catalog, and (built against the shared
// Platform) its projections, notification mapper, reactors, timers, HTTP
// service and workers. internal/app wires a list of modules and knows nothing
// of any one; platformctl, apptest, the compose file and scripts/run.sh read
// the same list. Adding a context is its own files plus one line in
// internal/modules.
package module

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/event"
	domjobs "github.com/platform/backend/domain/jobs"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/projections"
)

// Module is one bounded context.
type Module struct {
	// Name is the context's name: its topic is <prefix>.<Name>.events.v1,
	// its stream types start with "<Name>.", its configuration section and
	// its service (when it has one) are named by it.
	Name string
	// Topic: the context appends events (ops reads, never writes: no topic).
	Topic bool
	// EventTypes are every event type the context's domain declares; the
	// invariant tests check that each projection and mapper reading the
	// context handles or explicitly ignores each of them.
	EventTypes []string
	// Migrations create the context's write-side tables (timers and
	// reactors' tables are the platform's), applied in module order.
	Migrations []Migration
	// Config is the context's configuration section (nil: none). NewConfig
	// returns a fresh one with nothing set; the app reads the environment
	// into it, applies its defaults and validates it with every other.
	NewConfig func() Section
	// Service is the context's HTTP service (nil: none).
	Service *ServiceSpec
	// Jobs, when set, says the context runs durable jobs (Parts.Jobs): their
	// workers are a service of their own, "<name>-jobs" (JobsService), that
	// PLATFORM_SERVICES runs alone or beside others, with a liveness
	// listener. The module's EventTypes list domain/jobs.EventTypes(Name).
	Jobs *JobsSpec
	// App is the context's entry in the identity service's catalog: the
	// permissions its actions check (nil: the context checks none of its own).
	App *App
	// TenantKeyScopes are the scopes of the context's actions a tenant's
	// demo and test keys hold (make run, apptest): what a customer's key
	// usually has.
	TenantKeyScopes []string
	// OperatorKeyScopes are the platform scopes of the context an operator
	// key (a key of the administration organization) holds besides.
	OperatorKeyScopes []string
	// AuditRedacted names, per event type, the payload members the audit
	// view never shows (secret hashes).
	AuditRedacted map[string][]string
	// OneEventStreams are the context's stream types whose streams hold one
	// event each (a provider call's usage, settled once): read models that
	// apply them keep no stream version row for them
	// (projections.OneEventStreams), the audit history included.
	OneEventStreams []string
	// TestEnv are the variables of the context's section that integration
	// and end-to-end platforms run it with: its sandbox, loops the tests
	// drive themselves. apptest reads them through the section's FromEnv,
	// the e2e harness gives them to platformd (testing.go).
	TestEnv map[string]string
	// Locks are the leader locks of the context's singletons (leader.Named:
	// a poller, a sweeper): the app declares every module's at start and
	// refuses a name or key taken twice; leader.Run takes no other.
	Locks []leader.Lock
	// AuditRules say, per event type, which payload members the audit view
	// shows only while they are current, or only to privileged readers, or
	// to nobody after an erasure (event.AuditRule).
	AuditRules map[string]event.AuditRule
	// Build makes the context's parts against the platform. Modules are
	// built in list order, so a module may use what an earlier one provided
	// (Provide, Lookup): every service authenticates through identity's.
	Build func(ctx context.Context, p *Platform) (Parts, error)
}

// Migration creates or changes a context's tables; it runs under the
// migration lock and records itself (internal/migrate).
type Migration func(ctx context.Context, pool *pgxpool.Pool) error

// Section is a module's configuration: one struct with its environment
// variables, its defaults in code and a Validate that names every problem.
type Section interface {
	// FromEnv reads the section's variables over what is set (getenv is
	// os.Getenv in platformd); it returns every parse error.
	FromEnv(getenv func(string) string) error
	// Defaults fills what is unset.
	Defaults()
	Validate() error
}

// ServiceSpec is a context's HTTP service: its name (PLATFORM_SERVICES,
// PLATFORM_<NAME>_ADDR) and default listener.
type ServiceSpec struct {
	Name        string
	DefaultAddr string
	// Summary is one line for `make run` and `platformctl services`.
	Summary string
	// HealthPath is the liveness route (default /api/health).
	HealthPath string
}

// JobsSpec is a context's job workers as a service: their liveness
// listener (GET /health, PLATFORM_<NAME>_JOBS_ADDR).
type JobsSpec struct {
	DefaultAddr string
}

// JobsService is the name of a context's job workers in PLATFORM_SERVICES.
func JobsService(context string) string { return context + "-jobs" }

// App is a context's catalog entry: seed 001's service catalog row that the
// identity service seeds, whose scopes role bundles and keys are built from.
type App struct {
	AppID         string
	Name          string
	SurfaceKind   string // platform, app, console
	SurfaceGroup  string
	Launchable    bool
	DefaultAccess bool     // a default platform service of every organization
	Scopes        []string // the short permissions its actions check
	// PlatformScopes are held only through the platform bypass or by
	// operator keys (replays, privacy maintenance).
	PlatformScopes []string
	ResourceTypes  []string
}

// Parts are what a built module runs.
type Parts struct {
	Projections []projections.Projection
	// Notifications turn the context's events into contract notifications
	// (nil: the context emits none).
	Notifications notifications.Mapping
	// SilentStreams are the context's stream types none of whose events
	// emits a notification: the notification projector passes over them
	// without decoding or tracking them.
	SilentStreams []string
	Reactors      []reactor.Reactor
	// Timers registers the kinds of the context's durable timers.
	Timers func(*timers.Registry) error
	// Jobs are the kinds of the context's durable jobs (jobs.Define), run by
	// the context's job workers (Module.Jobs).
	Jobs []jobs.Kind
	// Service builds the HTTP service once every module is built (the
	// router's dependencies, the projection engine, are complete then).
	Service func(httpapi.Deps) (httpapi.Service, error)
	// Widget is the context's tile on the dashboard (httpapi.NewWidget):
	// the kernel serves it as widget.get (GET /api/widget) on the service,
	// and the dashboard reads every module's through Platform.Widgets. A
	// context with a service declares one, or is listed as having none in
	// internal/invariants (TestEveryServiceDeclaresAWidget).
	Widget *httpapi.Widget
	// ActionItems are what a person must resolve in the context (a post
	// awaiting review, an expiring connection): the dashboard's action queue
	// lists every module's through Platform.ActionItems (nil: none).
	ActionItems *httpapi.ActionItems
	Workers     []Worker
}

// Worker is a loop that runs while the process runs (a poller, scheduled
// maintenance); a leader lock makes it one per deployment where needed.
type Worker struct {
	Name string
	Run  func(ctx context.Context) error
}

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_]{1,30}$`)

// Check refuses a module declared wrongly, before anything starts.
func (m Module) Check() error {
	if !namePattern.MatchString(m.Name) {
		return fmt.Errorf("module %q: a name is lowercase letters, digits and underscores", m.Name)
	}
	if m.Build == nil {
		return fmt.Errorf("module %s: no Build", m.Name)
	}
	if m.Service != nil && (m.Service.Name == "" || m.Service.DefaultAddr == "") {
		return fmt.Errorf("module %s: a service needs a name and a default address", m.Name)
	}
	if m.Topic && len(m.EventTypes) == 0 {
		return fmt.Errorf("module %s: a context with a topic declares its event types", m.Name)
	}
	if m.Jobs != nil {
		if !m.Topic || m.Jobs.DefaultAddr == "" {
			return fmt.Errorf("module %s: a context with jobs has a topic (its jobs' streams) and a default address for its workers' listener", m.Name)
		}
		for _, typ := range domjobs.EventTypes(m.Name) {
			if !slices.Contains(m.EventTypes, typ) {
				return fmt.Errorf("module %s: a context with jobs lists domain/jobs.EventTypes(%q) among its EventTypes (%s is missing)", m.Name, m.Name, typ)
			}
		}
	}
	return nil
}
