package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	"github.com/jackc/pgx/v5/pgxpool"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/commands/reactor"
	statuscmd "github.com/platform/backend/commands/status"
	"github.com/platform/backend/commands/timers"
	identitydomain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/outbound"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/notifications/contracts"
	"github.com/platform/backend/projections"
	accessview "github.com/platform/backend/projections/access"
	"github.com/platform/backend/projections/history"
	identityview "github.com/platform/backend/projections/identity"
	statusview "github.com/platform/backend/projections/status"
)

// App is one platformd process.
type App struct {
	Cfg      Config
	Log      *slog.Logger
	Pool     *pgxpool.Pool
	Store    *eventstore.Store
	Engine   *projections.Engine
	Reader   *projections.Reader
	Relay    *eventstore.Relay
	Identity *identitycmd.Handlers
	Accounts *identityview.Queries
	Access   *identitycmd.Access // identity access half (access.go)
	AccessQ  *accessview.Queries
	Status   *statuscmd.Handlers
	Queries  *statusview.Queries
	Outbound *outbound.Client  // every tenant-supplied URL goes through it
	Timers   *timers.Scheduler // durable timers: reactors.go
	Reactors *reactor.Runner

	logWriter *eventstore.KafkaLogWriter
	publisher *kafka.Publisher
	handlers  map[string]http.Handler
	checker   *statuscmd.Checker // shared by manual polls and the poller: one pool of check workers
}

// Contexts whose topics exist and are read.
var Contexts = []string{"identity", "status"}

// AuditRedacted is every context's declaration of the payload members the
// audit view never shows (status events carry no secret).
var AuditRedacted = history.MergeRedactions(identitydomain.AuditRedacted)

// New connects, migrates, creates topics and builds every component.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*App, error) {
	a := &App{Cfg: cfg, Log: log, handlers: map[string]http.Handler{}}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	var err error
	if a.Pool, err = OpenPool(ctx, cfg.DatabaseURL); err != nil {
		return nil, err
	}
	for _, m := range []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate, projections.Migrate, notifications.Migrate, identitycmd.Migrate, statuscmd.Migrate, reactor.Migrate} {
		if err := m(ctx, a.Pool); err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
	}
	topics := cfg.Kafka.Topics
	all := []string{topics.Notifications(), topics.DeadLetter(), topics.NotificationsPoison()}
	for _, c := range Contexts {
		all = append(all, topics.ForContext(c))
	}
	if err := eventstore.EnsureTopics(cfg.Kafka, all...); err != nil {
		return nil, err
	}
	if a.logWriter, err = eventstore.NewKafkaLogWriter(cfg.Kafka); err != nil {
		return nil, err
	}
	if a.publisher, err = kafka.NewPublisher(kafka.PublisherConfig{
		Brokers: cfg.Kafka.Brokers, Marshaler: kafka.DefaultMarshaler{}, OverwriteSaramaConfig: cfg.Kafka.ProducerConfig(),
	}, watermill.NewSlogLogger(log)); err != nil {
		return nil, fmt.Errorf("kafka publisher: %w", err)
	}
	registry, err := contracts.Load()
	if err != nil {
		return nil, err
	}
	a.Store = eventstore.NewStore(a.Pool, topics)
	if a.Relay, err = eventstore.NewRelay(a.Pool, a.logWriter, cfg.Relay, log); err != nil {
		return nil, err
	}
	a.Engine, err = projections.NewEngine(a.Pool, cfg.Projections,
		projections.DeadLetterTopic{Publisher: a.publisher, Topic: topics.DeadLetter()}, log,
		statusview.Projection{},
		identityview.Projection{},
		accessview.Projection{},
		history.Projection{Sources: Contexts, Retention: identitycmd.AuditRetention, Redact: AuditRedacted},
		&notifications.Projection{Registry: registry, Mappers: map[string]notifications.Mapper{"status": notifications.StatusMapper}},
	)
	if err != nil {
		return nil, err
	}
	if err := a.Engine.Init(ctx); err != nil {
		return nil, err
	}
	a.Reader = projections.NewReader(a.Pool, a.Engine)
	a.Identity = identitycmd.NewHandlers(a.Store, nil, identitycmd.WithKeys(a.Pool),
		identitycmd.WithSessions(identitycmd.SessionConfig{AccessTTL: cfg.Identity.AccessTTL, SessionTTL: cfg.Identity.SessionTTL}))
	a.Accounts = identityview.NewQueries(a.Pool, a.Reader, a.Identity.Keys())
	a.Identity.SetDirectory(a.Accounts)
	if err := a.wireAccess(ctx); err != nil {
		return nil, err
	}
	// Service-scoped sign-in asks the access half which organizations may use a service.
	a.Identity.SetServiceAccess(a.Access.MayUseService)
	if a.Outbound, err = outbound.New(cfg.Outbound, log); err != nil {
		return nil, err
	}
	a.Status = statuscmd.NewHandlers(a.Store, nil, statuscmd.WithPool(a.Pool), statuscmd.WithConfig(cfg.Status.Checks),
		statuscmd.WithURLPolicy(a.Outbound.Policy()))
	a.checker = statuscmd.NewChecker(a.Outbound, cfg.Status.Checks)
	a.Queries = statusview.NewQueries(a.Pool, a.Reader)
	if err := a.wireReactors(); err != nil {
		return nil, err
	}
	if err := a.buildHandlers(); err != nil {
		return nil, err
	}
	ok = true
	return a, nil
}

// OpenPool connects with a pool sized for concurrent commands unless the
// URL says otherwise (pool_max_conns).
func OpenPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		pc.MaxConns = 48
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("database: %w", err)
	}
	return pool, nil
}

func (a *App) buildHandlers() error {
	var validator httpapi.Validator = httpapi.ValidatorFunc(a.Identity.Validate)
	if a.Cfg.AuthBaseURL != "" {
		validator = httpapi.NewRemoteValidator(a.Cfg.AuthBaseURL)
	}
	validator = httpapi.WithServiceTokens(a.Access.Keys(), validator)
	cors := &httpapi.CORSPolicy{Origins: a.Cfg.Identity.FirstPartyOrigins}
	attempts := httpapi.NewAttemptLimiter(a.Cfg.RateLimit)
	deps := httpapi.Deps{Validator: validator, Limiter: httpapi.NewLimiter(a.Cfg.RateLimit), Attempts: attempts,
		Reader: a.Reader, Log: a.Log, CORS: cors, MaxHeaderBytes: a.Cfg.HTTP.MaxHeaderBytes,
		CheckOutput: a.Cfg.HTTP.CheckOutput}
	identity := httpapi.IdentityService(httpapi.IdentityDeps{Commands: a.Identity, Accounts: a.Accounts, Log: a.Log,
		Web: httpapi.SessionWeb{CookieDomain: a.Cfg.Identity.CookieDomain, AdminConsoleURL: a.Cfg.Identity.AdminConsoleURL, CORS: cors}},
		httpapi.IdentityAccessPart(httpapi.AccessDeps{Access: a.Access, Queries: a.AccessQ, Log: a.Log, Attempts: attempts,
			Web: httpapi.SessionWeb{CookieDomain: a.Cfg.Identity.CookieDomain, AdminConsoleURL: a.Cfg.Identity.AdminConsoleURL, CORS: cors}}),
		httpapi.IdentityRecoveryPart(httpapi.RecoveryDeps{Access: a.Access,
			Web: httpapi.SessionWeb{CookieDomain: a.Cfg.Identity.CookieDomain, AdminConsoleURL: a.Cfg.Identity.AdminConsoleURL, CORS: cors}}),
		httpapi.IdentitySecurityPart(httpapi.SecurityDeps{Commands: a.Identity, Access: a.Access, Log: a.Log,
			Web: httpapi.SessionWeb{CookieDomain: a.Cfg.Identity.CookieDomain, AdminConsoleURL: a.Cfg.Identity.AdminConsoleURL, CORS: cors}}))
	identity.Routes = chain(identity.Routes, httpapi.ValidateRoute(httpapi.ValidatorFunc(a.Identity.Validate), deps))
	services := map[string]httpapi.Service{
		"identity": identity,
		"status": httpapi.StatusService(httpapi.StatusDeps{Commands: a.Status, Queries: a.Queries,
			Checker: a.checker, PublicOrganizationID: a.Cfg.Status.PublicOrganizationID}),
		"ops": httpapi.OpsService(httpapi.OpsDeps{Pool: a.Pool, Engine: a.Engine, History: history.NewQueries(a.Pool, a.Reader, AuditRedacted)}),
	}
	for _, name := range a.Cfg.Services {
		h, err := httpapi.NewHandler(services[name], deps)
		if err != nil {
			return err
		}
		a.handlers[name] = h
	}
	return nil
}

func chain[F ~func(T), T any](fs ...F) F {
	return func(t T) {
		for _, f := range fs {
			if f != nil {
				f(t)
			}
		}
	}
}

// Handler is a service's HTTP handler (for in-process tests).
func (a *App) Handler(service string) http.Handler { return a.handlers[service] }

// Run starts the workers and, when serve is true, the listeners, until ctx ends.
func (a *App) Run(ctx context.Context, serve bool) error {
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	goRun := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil && ctx.Err() == nil {
				errc <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	goRun("relay", a.Relay.Run)
	goRun("projections", a.Engine.Run)
	goRun("timers", a.Timers.Run)
	goRun("reactors", a.Reactors.Run)
	goRun("dispatcher", func(ctx context.Context) error {
		(&notifications.Dispatcher{Pool: a.Pool, Publisher: a.publisher, Topics: a.Cfg.Kafka.Topics, Log: a.Log}).Run(ctx)
		return nil
	})
	if a.Cfg.Notify.URL != "" {
		goRun("notify-webhook", a.runWebhook)
	}
	if a.Cfg.Status.PollInterval > 0 {
		goRun("status-poller", func(ctx context.Context) error {
			a.Status.RunPoller(ctx, a.Pool, a.Status.AllSurfaces, a.checker, a.Cfg.Status.PollInterval, a.Log)
			return nil
		})
	}
	if a.Cfg.Identity.PrivacyInterval > 0 {
		goRun("privacy-maintenance", func(ctx context.Context) error {
			a.Identity.RunPrivacyMaintenance(ctx, a.Pool, a.Cfg.Identity.PrivacyInterval, a.Log)
			return nil
		})
	}
	if serve {
		for _, name := range a.Cfg.Services {
			srv := &http.Server{Addr: a.Cfg.Addrs[name], Handler: a.handlers[name]}
			a.Cfg.HTTP.Configure(srv)
			ln, err := net.Listen("tcp", srv.Addr)
			if err != nil {
				return fmt.Errorf("listen %s on %s: %w", name, srv.Addr, err)
			}
			a.Log.Info("serving", "service", name, "url", "http://"+ln.Addr().String())
			goRun("http "+name, func(ctx context.Context) error {
				go func() {
					<-ctx.Done()
					sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					_ = srv.Shutdown(sctx)
				}()
				if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
					return err
				}
				return nil
			})
		}
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	wg.Wait()
	return err
}

func (a *App) runWebhook(ctx context.Context) error {
	cfg := a.Cfg.Kafka.ConsumerGroupConfig()
	sub, err := kafka.NewSubscriber(kafka.SubscriberConfig{
		Brokers: a.Cfg.Kafka.Brokers, Unmarshaler: kafka.DefaultMarshaler{}, OverwriteSaramaConfig: cfg,
		ConsumerGroup: a.Cfg.Kafka.Topics.Group("notify-webhook"),
	}, watermill.NewSlogLogger(a.Log))
	if err != nil {
		return err
	}
	router, err := notifications.NewDeliveryRouter(&notifications.Webhook{Pool: a.Pool, Config: a.Cfg.Notify}, sub, a.publisher,
		a.Cfg.Kafka.Topics.Notifications(), a.Cfg.Kafka.Topics.NotificationsPoison(), a.Log)
	if err != nil {
		return err
	}
	return router.Run(ctx)
}

// Close releases connections.
func (a *App) Close() {
	if a.publisher != nil {
		_ = a.publisher.Close()
	}
	if a.logWriter != nil {
		_ = a.logWriter.Close()
	}
	if a.Pool != nil {
		a.Pool.Close()
	}
}
