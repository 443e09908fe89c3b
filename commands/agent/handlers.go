// Package agent holds the agent's commands, one file each: flows and their
// runs (steps run as durable jobs through the platform's own HTTP API, with
// a credential delegated by the flow's owner), approvals and tasks, the
// triggers (schedules on durable timers, platform events through a
// reactor), knowledge, the public assistant's personas and chats, and
// person profiles.
package agent

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the agent's write-side tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "agent-commands", migrations, "migrations")
}

// AppID is the agent's app in the identity catalog: its actions are
// checked as agent.<scope>.
const AppID = "agent"

// Config tunes the agent's commands; zero values take the defaults.
type Config struct {
	// ApprovalTTL is how long an approval waits unless its step says
	// otherwise (AGENT_APPROVAL_TTL, 24h): then the run ends, expired.
	ApprovalTTL time.Duration
	// StepTimeout bounds one call of a step (AGENT_STEP_TIMEOUT, 30s).
	StepTimeout time.Duration
	// StepLease is how long a step's attempt is its worker's without a
	// heartbeat (AGENT_STEP_LEASE, 1m): a worker killed mid-call leaves its
	// step to the probe after it.
	StepLease time.Duration
	// StepAttempts and StepBackoff bound the retries of a step the platform
	// could not answer (503, 429, a network fault): AGENT_STEP_ATTEMPTS (5),
	// AGENT_STEP_BACKOFF (5s, doubling to 5m).
	StepAttempts int
	StepBackoff  time.Duration
	// MaxDepth bounds chains of event-triggered runs (a run's step makes an
	// event that starts another run ...): AGENT_MAX_TRIGGER_DEPTH, 3.
	MaxDepth int
	// ChatSessionTTL is how long a chat session lives (AGENT_CHAT_SESSION_TTL, 2h).
	ChatSessionTTL time.Duration
	// CatalogTTL is how long the actions' descriptors are kept (1m).
	CatalogTTL time.Duration
}

func (c Config) WithDefaults() Config {
	if c.ApprovalTTL == 0 {
		c.ApprovalTTL = 24 * time.Hour
	}
	if c.StepTimeout == 0 {
		c.StepTimeout = 30 * time.Second
	}
	if c.StepLease == 0 {
		c.StepLease = time.Minute
	}
	if c.StepAttempts == 0 {
		c.StepAttempts = 5
	}
	if c.StepBackoff == 0 {
		c.StepBackoff = 5 * time.Second
	}
	if c.MaxDepth == 0 {
		c.MaxDepth = 3
	}
	if c.ChatSessionTTL == 0 {
		c.ChatSessionTTL = 2 * time.Hour
	}
	if c.CatalogTTL == 0 {
		c.CatalogTTL = time.Minute
	}
	return c
}

// Validate names every problem.
func (c Config) Validate() error {
	var problems []error
	if c.ApprovalTTL < time.Second || c.ApprovalTTL > time.Duration(domain.MaxApprovalMinutes)*time.Minute {
		problems = append(problems, errors.New("AGENT_APPROVAL_TTL must be 1s..30 days"))
	}
	if c.StepTimeout <= 0 || c.StepLease <= 0 || c.StepBackoff <= 0 || c.ChatSessionTTL <= 0 || c.CatalogTTL <= 0 {
		problems = append(problems, errors.New("agent: step timeout, lease, backoff, chat session TTL and catalog TTL must be positive"))
	}
	if c.StepLease < 100*time.Millisecond {
		problems = append(problems, errors.New("AGENT_STEP_LEASE must be at least 100ms"))
	}
	if c.StepAttempts < 1 || c.MaxDepth < 1 {
		problems = append(problems, errors.New("AGENT_STEP_ATTEMPTS and AGENT_MAX_TRIGGER_DEPTH must be at least 1"))
	}
	return errors.Join(problems...)
}

// Handlers executes the agent's commands.
type Handlers struct {
	store   commands.Store
	pool    *pgxpool.Pool
	now     func() time.Time
	cfg     Config
	log     *slog.Logger
	catalog *Catalog
	creds   *Credentials
	steps   *jobs.Def[domain.StepInput, domain.CallResult]
	known   func(eventType string) bool
	client  *http.Client
}

// Deps are what the handlers are built from.
type Deps struct {
	Store   commands.Store
	Pool    *pgxpool.Pool
	Now     func() time.Time
	Config  Config
	Log     *slog.Logger
	Catalog *Catalog
	Creds   *Credentials
	Jobs    *jobs.Commands
	// KnownEvent reports whether an event type is one the platform's
	// contexts declare (a flow's event trigger).
	KnownEvent func(eventType string) bool
	// Client calls the platform's own services (steps): the operator's
	// configuration, not tenant URLs.
	Client *http.Client
}

// NewHandlers makes the handlers and defines the step job kind on the
// platform's job commands.
func NewHandlers(d Deps) (*Handlers, error) {
	h := &Handlers{store: d.Store, pool: d.Pool, now: commands.Clock(d.Now), cfg: d.Config.WithDefaults(), log: d.Log,
		catalog: d.Catalog, creds: d.Creds, known: d.KnownEvent, client: d.Client}
	if h.client == nil {
		h.client = &http.Client{}
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if err := h.defineSteps(d.Jobs); err != nil {
		return nil, err
	}
	return h, nil
}

// policy is what runs' decisions need of the configuration.
func (h *Handlers) policy() domain.Policy { return domain.Policy{ApprovalTTL: h.cfg.ApprovalTTL} }

// actorOf is who a principal is, as runs record deciders.
func actorOf(p principal.Principal) domain.Actor {
	return domain.Actor{ID: p.ID, Type: p.Type, UserID: p.ActingUser()}
}

// missing answers another organization's stream ("agent.run not found", the
// event store's) as the object a client names, missing.
func missing(err error, streamType, what string) error {
	if e, ok := errs.As(err); ok && e.Kind == errs.KindNotFound && e.Message == streamType+" not found" {
		return errs.NotFound(what)
	}
	return err
}

// systemMeta is the meta of the agent's own commands (a worker's, a
// timer's follow-up), with an idempotency key.
func systemMeta(organizationID, actor, key string) commands.Meta {
	m := commands.Meta{OrganizationID: organizationID, Actor: eventstore.Actor{ID: "agent:" + actor, Type: "system"}, CorrelationID: key}
	if key != "" {
		m.IdempotencyKey, m.RequestHash = key, eventstore.HashRequest([]byte(key))
	}
	return m
}

// derived is m with its idempotency key extended for one more command of
// the same request (a request that issues several), or without one.
func derived(m commands.Meta, suffix string) commands.Meta {
	if m.IdempotencyKey != "" {
		m.IdempotencyKey += ":" + suffix
		m.RequestHash = eventstore.HashRequest([]byte(m.RequestHash), []byte(suffix))
	}
	return m
}

// loadStream reads a stream of the organization (another organization's
// or none: not found).
func (h *Handlers) loadStream(ctx context.Context, organizationID, streamID, what string) ([]event.Recorded, error) {
	history, err := h.store.Load(ctx, streamID)
	if err != nil {
		return nil, err
	}
	if len(history) == 0 || history[0].OrganizationID != organizationID {
		return nil, errs.NotFound(what)
	}
	return commands.Recorded(history), nil
}

// validID is an id a client names in a path: ids the agent makes are UUIDs,
// anything else is missing (never a 500 from a stream id of odd bytes).
func validID(id string) bool {
	return len(id) >= 8 && len(id) <= 64 && strings.IndexFunc(id, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r == '-')
	}) < 0
}

// bound keeps a text to n characters.
func bound(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
