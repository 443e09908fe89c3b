package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/objectstore"
	"github.com/platform/backend/internal/outbound"
	"github.com/platform/backend/internal/pgtypes"
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
	// Jobs are the job workers this process runs, by context
	// (PLATFORM_SERVICES lists "<context>-jobs").
	Jobs map[string]*jobs.Worker
	// Parts and Services are what each module built, by module and service
	// name: the invariant tests read them (internal/invariants).
	Parts    map[string]module.Parts
	Services map[string]httpapi.Service

	logWriter *eventstore.KafkaLogWriter // the relay's
	// dispatchWriter is the notification dispatcher's: its batches never
	// queue behind the relay's on one connection, nor the relay's behind them.
	dispatchWriter *eventstore.KafkaLogWriter
	publisher      *notifications.Publisher
	handlers       map[string]http.Handler
	workers        []module.Worker
}

// New connects, migrates, creates topics, builds every module and its parts.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*App, error) {
	a := &App{Cfg: cfg, Log: log, handlers: map[string]http.Handler{}, Parts: map[string]module.Parts{},
		Services: map[string]httpapi.Service{}, Jobs: map[string]*jobs.Worker{}}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	mods := Modules()
	if err := declareLocks(mods); err != nil {
		return nil, err
	}
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
		AuthBaseURL: cfg.AuthBaseURL, Addrs: cfg.Addrs, Sections: cfg.Modules, Modules: mods, KeyRing: cfg.KeyRing.Ring}
	if cfg.KeyRing.SandboxKey() {
		log.Warn("secrets are sealed with the sandbox's fixed key (no PLATFORM_KEYRING): not for real secrets")
	}
	p.Jobs = jobs.NewCommands(a.Store, p.Now)
	a.Platform = p // from here on, Close releases what p holds
	if p.Outbound, err = outbound.New(cfg.Outbound, log); err != nil {
		return nil, err
	}
	if p.Objects, err = objectstore.Open(ctx, cfg.Objects); err != nil {
		return nil, fmt.Errorf("object store: %w", err)
	}
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
	if p.Widgets, err = widgets(mods, parts); err != nil {
		return nil, err
	}
	if p.ActionItems, err = actionItems(mods, parts); err != nil {
		return nil, err
	}
	if err := a.buildReadSide(ctx, mods, parts); err != nil {
		return nil, err
	}
	if err := a.buildJobs(mods, parts); err != nil {
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
	if a.dispatchWriter, err = eventstore.NewKafkaLogWriter(a.Cfg.Kafka); err != nil {
		return err
	}
	if a.publisher, err = notifications.NewPublisher(a.Cfg.Kafka); err != nil {
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
	notifications.ShowTypes(registry.Types())
	mappers := map[string]notifications.Mapper{}
	var all []projections.Projection
	var silent []string
	for i, pt := range parts {
		all = append(all, pt.Projections...)
		if pt.Notifications != nil {
			mappers[mods[i].Name] = pt.Notifications.Map
		}
		silent = append(silent, pt.SilentStreams...)
	}
	all = append(all, &notifications.Projection{Registry: registry, Mappers: mappers, SilentStreams: silent})
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

// buildJobs makes the job workers of the contexts whose "<context>-jobs"
// this process runs. A module declares jobs in both places or neither:
// its kinds (Parts.Jobs) and its workers' service (Module.Jobs).
func (a *App) buildJobs(mods []module.Module, parts []module.Parts) error {
	for i, m := range mods {
		switch {
		case m.Jobs == nil && len(parts[i].Jobs) > 0:
			return fmt.Errorf("module %s: its parts have jobs and the module declares no Jobs (its workers' service)", m.Name)
		case m.Jobs != nil && len(parts[i].Jobs) == 0:
			return fmt.Errorf("module %s: declares Jobs and its parts have no kind of job", m.Name)
		case m.Jobs == nil || !slices.Contains(a.Cfg.Services, module.JobsService(m.Name)):
			continue
		}
		w, err := jobs.NewWorker(m.Name, parts[i].Jobs, a.Cfg.Jobs, a.Log)
		if err != nil {
			return fmt.Errorf("module %s: %w", m.Name, err)
		}
		a.Jobs[m.Name] = w
	}
	return nil
}

// workersOnly: the process runs job workers and nothing else
// (PLATFORM_SERVICES lists only "<context>-jobs" names).
func (a *App) workersOnly() bool {
	return !slices.ContainsFunc(a.Cfg.Services, func(s string) bool { return !IsWorker(s) })
}

// buildReactors builds the timer scheduler with every module's timer kinds
// (and the job timers of the contexts whose workers run here) and the
// reactor runner with every module's reactors. Both run in every process:
// timers are claimed with SKIP LOCKED, reactors share their consumer
// groups' partitions. A process of job workers only fires their timers.
func (a *App) buildReactors(parts []module.Parts) error {
	registry := timers.NewRegistry()
	var reactors []reactor.Reactor
	for _, pt := range parts {
		if pt.Timers != nil && !a.workersOnly() {
			if err := pt.Timers(registry); err != nil {
				return err
			}
		}
		reactors = append(reactors, pt.Reactors...)
	}
	for _, w := range a.Jobs {
		if err := w.RegisterTimers(registry); err != nil {
			return err
		}
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
		Attempts: httpapi.NewAttemptLimiter(a.Cfg.RateLimit), Inbound: httpapi.NewInboundLimiter(a.Cfg.RateLimit), Reader: a.Reader, Log: a.Log, CORS: cors,
		MaxHeaderBytes: a.Cfg.HTTP.MaxHeaderBytes, CheckOutput: a.Cfg.HTTP.CheckOutput}
	objectsPath, objects := objectstore.Handler(a.Platform.Objects, a.Log)
	for i, m := range mods {
		if m.Service == nil || parts[i].Service == nil {
			continue
		}
		svc, err := parts[i].Service(deps)
		if err != nil {
			return fmt.Errorf("module %s: service: %w", m.Name, err)
		}
		svc.Name = m.Service.Name
		if parts[i].Widget != nil {
			if svc, err = withWidget(svc, m, parts[i].Widget); err != nil {
				return err
			}
		}
		if svc.HealthPath == "" {
			svc.HealthPath = m.Service.HealthPath
		}
		if objects != nil {
			if shadowed := shadowedRoutes(objectsPath, svc); len(shadowed) > 0 {
				return fmt.Errorf("the object store's signed URLs (path %s of OBJECTSTORE_PUBLIC_URL) would take the routes %s of service %s: give them a path of their own, such as /objects",
					objectsPath, strings.Join(shadowed, ", "), m.Service.Name)
			}
		}
		h, err := httpapi.NewHandler(svc, deps)
		if err != nil {
			return err
		}
		a.handlers[m.Service.Name] = withObjects(h, objectsPath, objects)
		a.Services[m.Service.Name] = svc
	}
	for name, w := range a.Jobs {
		// The workers' listener is a service without actions: the kernel's
		// problem answers, request ids and headers, and the liveness route.
		svc := httpapi.Service{Name: module.JobsService(name), HealthPath: WorkerHealthPath, Health: func(context.Context) (int, any) {
			st := w.Stats()
			return http.StatusOK, map[string]any{"status": "ok", "service": module.JobsService(name), "held": st.Held,
				"running": st.Running, "timestamp": time.Now().UTC().Format(time.RFC3339Nano)}
		}}
		h, err := httpapi.NewHandler(svc, deps)
		if err != nil {
			return err
		}
		a.handlers[svc.Name] = h
	}
	return nil
}

// widgets are the modules' tiles. A tile is served by its module's service
// and checked in its module's app, so a module declaring one needs both.
func widgets(mods []module.Module, parts []module.Parts) ([]module.AppWidget, error) {
	var out []module.AppWidget
	for i, m := range mods {
		w := parts[i].Widget
		if w == nil {
			continue
		}
		if m.Service == nil || m.App == nil || parts[i].Service == nil {
			return nil, fmt.Errorf("module %s: a widget is served by the module's service and checked in its app: declare both", m.Name)
		}
		if err := w.Check(); err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Name, err)
		}
		out = append(out, module.AppWidget{Module: m.Name, AppID: m.App.AppID, Service: m.Service.Name, Widget: w})
	}
	return out, nil
}

// actionItems are the modules' action-item declarations, checked in each
// module's app.
func actionItems(mods []module.Module, parts []module.Parts) ([]module.AppActionItems, error) {
	var out []module.AppActionItems
	for i, m := range mods {
		a := parts[i].ActionItems
		if a == nil {
			continue
		}
		if m.App == nil {
			return nil, fmt.Errorf("module %s: action items are checked in the module's app: declare one", m.Name)
		}
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Name, err)
		}
		out = append(out, module.AppActionItems{Module: m.Name, AppID: m.App.AppID, Items: a})
	}
	return out, nil
}

// withWidget binds the module's widget as the service's widget.get: the
// kernel's, so every service answers one shape under one permission
// convention. A service declaring its own is refused (two widget.get).
func withWidget(svc httpapi.Service, m module.Module, w *httpapi.Widget) (httpapi.Service, error) {
	if svc.AppID != m.App.AppID {
		return svc, fmt.Errorf("module %s: service %s checks permissions as app %q, its widget as %q", m.Name, svc.Name, svc.AppID, m.App.AppID)
	}
	for _, a := range svc.Actions {
		if a.Name == httpapi.WidgetAction || a.Path == httpapi.WidgetPath {
			return svc, fmt.Errorf("module %s: service %s declares %s %s itself: declare it as the module's Widget", m.Name, svc.Name, a.Name, a.Path)
		}
	}
	svc.Actions = append([]httpapi.Action{w.Action(m.App.AppID)}, svc.Actions...)
	return svc, nil
}

// withObjects serves the object store's signed URLs (uploads and downloads
// of the local backend) beside a service: they carry their own
// authorization (the signature) and their own media types, so they stay
// outside the service's router (its JSON-only and credential rules).
func withObjects(service http.Handler, path string, objects http.Handler) http.Handler {
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

// shadowedRoutes are the service's routes that withObjects would hand to the
// object store (prefix ends with "/"): all of them when OBJECTSTORE_PUBLIC_URL
// has no path.
func shadowedRoutes(prefix string, svc httpapi.Service) []string {
	health := svc.HealthPath
	if health == "" {
		health = httpapi.DefaultHealthPath
	}
	paths := []string{"/api/actions", "/api/openapi.json", health}
	for _, a := range svc.Actions {
		paths = append(paths, a.Path)
	}
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, prefix) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// OpenPool connects with a pool sized for concurrent commands unless the
// URL says otherwise (pool_max_conns), its connections knowing the
// platform's Go types (pgtypes).
func OpenPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		pc.MaxConns = 48
	}
	pgtypes.Configure(pc)
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

// Run starts the workers and, when serve is true, the listeners, until ctx
// ends or one of them fails: then the others are stopped, and Run returns
// that first error once every one has returned. Every listener is bound
// before anything starts, so an address in use fails the start cleanly.
func (a *App) Run(ctx context.Context, serve bool) error {
	var tasks []task
	if serve {
		listeners := make([]net.Listener, 0, len(a.Cfg.Services))
		for _, name := range a.Cfg.Services {
			ln, err := net.Listen("tcp", a.Cfg.Addrs[name])
			if err != nil {
				for _, l := range listeners {
					_ = l.Close()
				}
				return fmt.Errorf("listen %s on %s: %w", name, a.Cfg.Addrs[name], err)
			}
			listeners = append(listeners, ln)
		}
		for i, name := range a.Cfg.Services {
			srv := &http.Server{Addr: a.Cfg.Addrs[name], Handler: a.handlers[name]}
			a.Cfg.HTTP.Configure(srv)
			ln := listeners[i]
			a.Log.Info("serving", "service", name, "url", "http://"+ln.Addr().String())
			tasks = append(tasks, task{"http " + name, func(ctx context.Context) error {
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
			}})
		}
	}
	tasks = append(tasks, task{"timers", a.Timers.Run})
	for name, w := range a.Jobs {
		tasks = append(tasks, task{module.JobsService(name), w.Run})
	}
	if a.workersOnly() {
		return supervise(ctx, tasks)
	}
	tasks = append(tasks,
		task{"relay", a.Relay.Run},
		task{"projections", a.Engine.Run},
		task{"reactors", a.Reactors.Run},
		task{"dispatcher", func(ctx context.Context) error {
			a.Dispatcher().Run(ctx)
			return nil
		}})
	if a.Cfg.Notify.URL != "" {
		tasks = append(tasks, task{"notify-webhook", a.runWebhook})
	}
	for _, w := range a.workers {
		tasks = append(tasks, task{w.Name, w.Run})
	}
	return supervise(ctx, tasks)
}

// Dispatcher is the notification dispatcher the process runs (Run's
// "dispatcher" task; benchmarks run it alone).
func (a *App) Dispatcher() *notifications.Dispatcher {
	return &notifications.Dispatcher{Pool: a.Pool, Writer: a.dispatchWriter, Topics: a.Cfg.Kafka.Topics, Log: a.Log}
}

// task is one loop of the process: a worker or a listener.
type task struct {
	name string
	run  func(context.Context) error
}

// supervise runs every task until ctx ends or one fails; a failure stops
// the others (their context is canceled), and supervise returns it once
// every task has returned. Before, a failing worker left the rest running
// and Run waiting for them: platformd neither served fully nor exited.
func supervise(ctx context.Context, tasks []task) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, len(tasks)) // never blocks a failing task
	for _, t := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := t.run(ctx); err != nil && ctx.Err() == nil {
				errc <- fmt.Errorf("%s: %w", t.name, err)
			}
		}()
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	cancel()
	wg.Wait()
	return err
}

func (a *App) runWebhook(ctx context.Context) error {
	d := &notifications.Delivery{Webhook: &notifications.Webhook{Pool: a.Pool, Config: a.Cfg.Notify}, Kafka: a.Cfg.Kafka,
		Poison: a.publisher, Log: a.Log}
	return d.Run(ctx)
}

// Close releases connections and the object store; it may be called again.
func (a *App) Close() {
	if a.publisher != nil {
		_ = a.publisher.Close()
		a.publisher = nil
	}
	for _, w := range []**eventstore.KafkaLogWriter{&a.logWriter, &a.dispatchWriter} {
		if *w != nil {
			_ = (*w).Close()
			*w = nil
		}
	}
	if a.Platform != nil && a.Platform.Objects != nil {
		_ = a.Platform.Objects.Close()
		a.Platform.Objects = nil
	}
	if a.Pool != nil {
		a.Pool.Close()
	}
}
