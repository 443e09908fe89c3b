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

	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/objectstore"
	"github.com/platform/backend/internal/outbound"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/notifications/contracts"
	"github.com/platform/backend/projections"
)

// App is one platformd process.
type App struct {
	Cfg    Config
	Log    *slog.Logger
	Pool   *pgxpool.Pool
	Store  *eventstore.Store
	Engine *projections.Engine
	Reader *projections.Reader
	Relay  *eventstore.Relay
	// Platform is what the modules were built against; module.Lookup reads
	// what a module provided (its commands, for tests).
	Platform *module.Platform
	Timers   *timers.Scheduler // durable timers of every module
	Reactors *reactor.Runner   // reactors of every module
	// Parts and Services are what each module built, by module and service
	// name: the invariant tests read them (internal/invariants).
	Parts    map[string]module.Parts
	Services map[string]httpapi.Service

	logWriter *eventstore.KafkaLogWriter
	publisher *kafka.Publisher
	handlers  map[string]http.Handler
	workers   []module.Worker
}

// New connects, migrates, creates topics, builds every module and its parts.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*App, error) {
	a := &App{Cfg: cfg, Log: log, handlers: map[string]http.Handler{}, Parts: map[string]module.Parts{},
		Services: map[string]httpapi.Service{}}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	mods := Modules()
	var err error
	if a.Pool, err = OpenPool(ctx, cfg.DatabaseURL); err != nil {
		return nil, err
	}
	if err := migrate(ctx, a.Pool, mods); err != nil {
		return nil, err
	}
	if err := a.connectKafka(mods); err != nil {
		return nil, err
	}
	a.Store = eventstore.NewStore(a.Pool, cfg.Kafka.Topics)
	if a.Relay, err = eventstore.NewRelay(a.Pool, a.logWriter, cfg.Relay, log); err != nil {
		return nil, err
	}
	a.Reader = projections.NewReader(a.Pool, nil)
	p := &module.Platform{Log: log, Pool: a.Pool, Store: a.Store, Reader: a.Reader, Topics: cfg.Kafka.Topics, Kafka: cfg.Kafka,
		AuthBaseURL: cfg.AuthBaseURL, Addrs: cfg.Addrs, Sections: cfg.Modules, Modules: mods}
	if p.Outbound, err = outbound.New(cfg.Outbound, log); err != nil {
		return nil, err
	}
	if p.Objects, err = objectstore.Open(ctx, cfg.Objects); err != nil {
		return nil, fmt.Errorf("object store: %w", err)
	}
	a.Platform = p
	parts := make([]module.Parts, len(mods))
	for i, m := range mods {
		if parts[i], err = m.Build(ctx, p); err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Name, err)
		}
		a.Parts[m.Name] = parts[i]
	}
	if p.Validator == nil {
		return nil, errors.New("no module provides the credential validator (is the identity module listed?)")
	}
	if err := a.buildReadSide(ctx, mods, parts); err != nil {
		return nil, err
	}
	if err := a.buildReactors(parts); err != nil {
		return nil, err
	}
	if err := a.buildHandlers(mods, parts); err != nil {
		return nil, err
	}
	for _, pt := range parts {
		a.workers = append(a.workers, pt.Workers...)
	}
	ok = true
	return a, nil
}

// migrate applies the platform's tables, then each module's, in order.
func migrate(ctx context.Context, pool *pgxpool.Pool, mods []module.Module) error {
	all := []module.Migration{eventstore.Migrate, projections.Migrate, notifications.Migrate, reactor.Migrate}
	for _, m := range mods {
		all = append(all, m.Migrations...)
	}
	for _, m := range all {
		if err := m(ctx, pool); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	return nil
}

// connectKafka creates the topics (one per context, the notification and
// dead-letter topics) and the producers.
func (a *App) connectKafka(mods []module.Module) error {
	topics := a.Cfg.Kafka.Topics
	all := []string{topics.Notifications(), topics.DeadLetter(), topics.NotificationsPoison()}
	for _, m := range mods {
		if m.Topic {
			all = append(all, topics.ForContext(m.Name))
		}
	}
	if err := eventstore.EnsureTopics(a.Cfg.Kafka, all...); err != nil {
		return err
	}
	var err error
	if a.logWriter, err = eventstore.NewKafkaLogWriter(a.Cfg.Kafka); err != nil {
		return err
	}
	if a.publisher, err = kafka.NewPublisher(kafka.PublisherConfig{
		Brokers: a.Cfg.Kafka.Brokers, Marshaler: kafka.DefaultMarshaler{}, OverwriteSaramaConfig: a.Cfg.Kafka.ProducerConfig(),
	}, watermill.NewSlogLogger(a.Log)); err != nil {
		return fmt.Errorf("kafka publisher: %w", err)
	}
	return nil
}

// buildReadSide builds the engine over every module's projections and the
// notification projector over every module's mapping.
func (a *App) buildReadSide(ctx context.Context, mods []module.Module, parts []module.Parts) error {
	registry, err := contracts.Load()
	if err != nil {
		return err
	}
	mappers := map[string]notifications.Mapper{}
	var all []projections.Projection
	for i, pt := range parts {
		all = append(all, pt.Projections...)
		if pt.Notifications != nil {
			mappers[mods[i].Name] = pt.Notifications.Map
		}
	}
	all = append(all, &notifications.Projection{Registry: registry, Mappers: mappers})
	a.Engine, err = projections.NewEngine(a.Pool, a.Cfg.Projections,
		projections.DeadLetterTopic{Publisher: a.publisher, Topic: a.Cfg.Kafka.Topics.DeadLetter()}, a.Log, all...)
	if err != nil {
		return err
	}
	if err := a.Engine.Init(ctx); err != nil {
		return err
	}
	a.Reader.Attach(a.Engine)
	a.Platform.Engine = a.Engine
	return nil
}

// buildReactors builds the timer scheduler with every module's timer kinds
// and the reactor runner with every module's reactors. Both run in every
// process: timers are claimed with SKIP LOCKED, reactors share their
// consumer groups' partitions.
func (a *App) buildReactors(parts []module.Parts) error {
	registry := timers.NewRegistry()
	var reactors []reactor.Reactor
	for _, pt := range parts {
		if pt.Timers != nil {
			if err := pt.Timers(registry); err != nil {
				return err
			}
		}
		reactors = append(reactors, pt.Reactors...)
	}
	var err error
	if a.Timers, err = timers.NewScheduler(a.Pool, registry, a.Cfg.Timers, a.Log); err != nil {
		return err
	}
	a.Reactors, err = reactor.NewRunner(a.Pool, a.Cfg.Reactors,
		projections.DeadLetterTopic{Publisher: a.publisher, Topic: a.Cfg.Kafka.Topics.DeadLetter()}, a.Log, reactors...)
	return err
}

// buildHandlers builds every module's service on the shared router
// dependencies (credentials through the identity module's validator).
func (a *App) buildHandlers(mods []module.Module, parts []module.Parts) error {
	cors := &httpapi.CORSPolicy{Origins: a.Cfg.FirstPartyOrigins}
	deps := httpapi.Deps{Validator: a.Platform.Validator, Limiter: httpapi.NewLimiter(a.Cfg.RateLimit),
		Attempts: httpapi.NewAttemptLimiter(a.Cfg.RateLimit), Reader: a.Reader, Log: a.Log, CORS: cors,
		MaxHeaderBytes: a.Cfg.HTTP.MaxHeaderBytes, CheckOutput: a.Cfg.HTTP.CheckOutput}
	for i, m := range mods {
		if m.Service == nil || parts[i].Service == nil {
			continue
		}
		svc, err := parts[i].Service(deps)
		if err != nil {
			return fmt.Errorf("module %s: service: %w", m.Name, err)
		}
		svc.Name = m.Service.Name
		if svc.HealthPath == "" {
			svc.HealthPath = m.Service.HealthPath
		}
		h, err := httpapi.NewHandler(svc, deps)
		if err != nil {
			return err
		}
		a.handlers[m.Service.Name] = withObjects(h, a.Platform.Objects, a.Log)
		a.Services[m.Service.Name] = svc
	}
	return nil
}

// withObjects serves the object store's signed URLs (uploads and downloads
// of the local backend) beside a service: they carry their own
// authorization (the signature) and their own media types, so they stay
// outside the service's router (its JSON-only and credential rules).
func withObjects(service http.Handler, store objectstore.Store, log *slog.Logger) http.Handler {
	path, objects := objectstore.Handler(store, log)
	if objects == nil {
		return service
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, path) {
			objects.ServeHTTP(w, r)
			return
		}
		service.ServeHTTP(w, r)
	})
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

// Handler is a service's HTTP handler (for in-process tests).
func (a *App) Handler(service string) http.Handler { return a.handlers[service] }

// Run starts the workers and, when serve is true, the listeners, until ctx ends.
func (a *App) Run(ctx context.Context, serve bool) error {
	var wg sync.WaitGroup
	errc := make(chan error, 8+len(a.workers)+len(a.Cfg.Services)) // never blocks a failing goroutine
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
	for _, w := range a.workers {
		goRun(w.Name, w.Run)
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
