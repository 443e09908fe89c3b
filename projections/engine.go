package projections

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/migrate"
	"github.com/platform/backend/internal/retry"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the runner's registry, checkpoint and failure tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "projections", migrations, "migrations")
}

// EngineConfig is the projections section of the configuration.
type EngineConfig struct {
	Kafka        eventstore.KafkaConfig
	Runner       RunnerConfig
	PollInterval time.Duration // how often generations are reconciled; default 1s
}

func (c EngineConfig) WithDefaults() EngineConfig {
	c.Kafka = c.Kafka.WithDefaults()
	c.Runner = c.Runner.WithDefaults()
	if c.PollInterval == 0 {
		c.PollInterval = time.Second
	}
	return c
}

func (c EngineConfig) Validate() error {
	return errors.Join(c.Kafka.Validate(), c.Runner.Validate())
}

// Engine runs every registered projection: the active generations together
// in one consumer group (group.go), and a building generation on its own
// group next to its projection's active one when a rebuild was requested.
// When the building generation has caught up with the log it becomes active
// in one transaction, and queries read it from then on.
type Engine struct {
	pool        *pgxpool.Pool
	cfg         EngineConfig
	dead        DeadLetters
	log         *slog.Logger
	projections map[string]Projection
	order       []string

	mu      sync.Mutex
	solo    map[genKey]*consumer // generations consumed alone: building, or active and catching up
	live    *liveGroup           // the active generations that have caught up, consumed together
	joined  map[genKey]bool      // active generations that caught up once: members of the live group from then on
	created map[genKey]bool      // live members whose tables this process created
	held    map[genKey]int       // building generations kept from going live, by parked events (logged once per count)
	changed chan struct{}        // closed and replaced after every committed batch
}

type genKey struct {
	name       string
	generation int
}

// consumer is a running consumer group of the engine.
type consumer struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once it stopped
}

// liveGroup is the running group of the live generations.
type liveGroup struct {
	consumer
	keys []genKey
}

func NewEngine(pool *pgxpool.Pool, cfg EngineConfig, dead DeadLetters, log *slog.Logger, ps ...Projection) (*Engine, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{pool: pool, cfg: cfg, dead: dead, log: log, projections: map[string]Projection{},
		solo: map[genKey]*consumer{}, joined: map[genKey]bool{}, created: map[genKey]bool{}, held: map[genKey]int{}, changed: make(chan struct{})}
	for _, p := range ps {
		if _, dup := e.projections[p.Name()]; dup {
			return nil, fmt.Errorf("projection %q registered twice", p.Name())
		}
		e.projections[p.Name()] = p
		e.order = append(e.order, p.Name())
	}
	return e, nil
}

// Projection returns a registered projection.
func (e *Engine) Projection(name string) (Projection, bool) {
	p, ok := e.projections[name]
	return p, ok
}

// Names lists the registered projections in registration order.
func (e *Engine) Names() []string { return append([]string(nil), e.order...) }

// Init creates generation 1 (active) of every projection that has none.
// Callers run it before serving queries.
func (e *Engine) Init(ctx context.Context) error {
	for _, name := range e.order {
		p := e.projections[name]
		err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 3))`, name); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM proj_generations WHERE projection=$1`, name).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if err := createTables(ctx, tx, p, 1, true); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO proj_generations (projection, generation, state, activated_at) VALUES ($1, 1, 'active', now())`, name)
			return err
		})
		if err != nil {
			return fmt.Errorf("init projection %s: %w", name, err)
		}
	}
	return nil
}

// createTables creates a generation's tables, with their deferred indexes
// (DeferredIndexes) when indexed: the active generation's, never those of
// a generation being rebuilt.
func createTables(ctx context.Context, tx pgx.Tx, p Projection, generation int, indexed bool) error {
	names := Resolver(p, generation)
	for _, ddl := range p.Schema() {
		if _, err := tx.Exec(ctx, names.Replace(ddl)); err != nil {
			return fmt.Errorf("create tables of %s g%d: %w", p.Name(), generation, err)
		}
	}
	if !indexed {
		return nil
	}
	return buildIndexes(ctx, tx, p.Name(), generation, deferredIndexes(p, generation))
}

// deferredIndexes are the projection's DeferredIndexes for a generation
// (resolved), nil for a projection without any.
func deferredIndexes(p Projection, generation int) []string {
	d, ok := p.(DeferredIndexes)
	if !ok {
		return nil
	}
	names := Resolver(p, generation)
	var out []string
	for _, ddl := range d.DeferredIndexes() {
		out = append(out, names.Replace(ddl))
	}
	return out
}

// buildIndexes builds a generation's deferred indexes in tx (each IF NOT
// EXISTS). Its partitions' runners and the activation may get there at
// once: a lock per generation lets one build them and the others find them
// built (two CREATE INDEX IF NOT EXISTS of one name at once: one fails).
func buildIndexes(ctx context.Context, tx eventstore.Tx, name string, generation int, ddl []string) error {
	if len(ddl) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 4))`, TableName(name, generation)); err != nil {
		return err
	}
	for _, d := range ddl {
		if _, err := tx.Exec(ctx, d); err != nil {
			return fmt.Errorf("build the indexes of %s g%d: %w", name, generation, err)
		}
	}
	return nil
}

// RequestRebuild starts a new generation of a projection, built from offset
// zero by the running engine. It returns the new generation number.
func RequestRebuild(ctx context.Context, pool *pgxpool.Pool, name string) (int, error) {
	var gen int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 3))`, name); err != nil {
			return err
		}
		var building bool
		if err := tx.QueryRow(ctx, `SELECT COALESCE(max(generation), 0) + 1, bool_or(state = 'building')
			FROM proj_generations WHERE projection=$1`, name).Scan(&gen, &building); err != nil {
			return err
		}
		if gen == 1 {
			return errs.NotFound("projection " + name)
		}
		if building {
			return errs.Conflict("rebuild_in_progress", "a rebuild of "+name+" is already running")
		}
		_, err := tx.Exec(ctx, `INSERT INTO proj_generations (projection, generation, state) VALUES ($1, $2, 'building')`, name, gen)
		return err
	})
	return gen, err
}

// Generation describes one generation's state.
type Generation struct {
	Projection  string     `json:"projection"`
	Generation  int        `json:"generation"`
	State       string     `json:"state"`
	CreatedAt   time.Time  `json:"created_at"`
	ActivatedAt *time.Time `json:"activated_at"`
}

// Generations lists every generation of every projection.
func Generations(ctx context.Context, pool *pgxpool.Pool) ([]Generation, error) {
	rows, err := pool.Query(ctx, `SELECT projection, generation, state, created_at, activated_at
		FROM proj_generations ORDER BY projection, generation`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Generation, error) {
		var g Generation
		err := r.Scan(&g.Projection, &g.Generation, &g.State, &g.CreatedAt, &g.ActivatedAt)
		return g, err
	})
}

// Run reconciles generations until ctx ends.
func (e *Engine) Run(ctx context.Context) error {
	// The database may be out as the process starts (app.New ran Init once
	// already): waiting it out keeps the process up, where returning would
	// stop every other task with it (app.supervise).
	for try := 1; ; try++ {
		err := e.Init(ctx)
		if err == nil {
			break
		}
		if !eventstore.IsTransient(err) {
			return err
		}
		e.log.Warn("projections: the database is out; initialising again", "err", err)
		if !retry.Sleep(ctx, retry.Backoff(100*time.Millisecond, try, 5*time.Second)) {
			return nil
		}
	}
	client, err := sarama.NewClient(e.cfg.Kafka.Brokers, e.cfg.Kafka.SaramaConfig())
	for try := 1; err != nil; try++ {
		// The broker may be down at start: try again rather than give up.
		e.log.Warn("projections: kafka client", "err", err)
		if !retry.Sleep(ctx, retry.Backoff(time.Second, try, 5*time.Second)) {
			return nil
		}
		client, err = sarama.NewClient(e.cfg.Kafka.Brokers, e.cfg.Kafka.SaramaConfig())
	}
	defer client.Close()
	var wg sync.WaitGroup
	defer func() {
		e.mu.Lock()
		for _, c := range e.solo {
			c.cancel()
		}
		if e.live != nil {
			e.live.cancel()
		}
		e.mu.Unlock()
		wg.Wait()
	}()
	ticker := time.NewTicker(e.cfg.PollInterval)
	defer ticker.Stop()
	for {
		if err := e.reconcile(ctx, client, &wg); err != nil && ctx.Err() == nil {
			e.log.Warn("projections: reconcile failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// reconcile runs what the generations' states ask for: each building
// generation alone; each active one in the live group once it has caught
// up with the log (near enough: catchUpSlack), alone until then, so that a
// projection added to a running platform (its generation 1 reads the log
// from its start) does not hold the others' partitions back while it
// catches up; and it makes building generations that caught up active.
func (e *Engine) reconcile(ctx context.Context, client sarama.Client, wg *sync.WaitGroup) error {
	gens, err := Generations(ctx, e.pool)
	if err != nil {
		return err
	}
	want := map[genKey]string{}
	var live []genKey // in Generations' order: by projection
	for _, g := range gens {
		if _, ok := e.projections[g.Projection]; !ok || g.State == "retired" {
			continue
		}
		k := genKey{g.Projection, g.Generation}
		want[k] = g.State
		if g.State != "active" {
			continue
		}
		if !e.joined[k] {
			behind, err := e.behind(ctx, client, k)
			if err != nil {
				return err
			}
			if behind > catchUpSlack(e.cfg.Runner) {
				continue
			}
			e.joined[k] = true
		}
		if !e.created[k] {
			// A live member whose tables cannot be created (the database
			// down, a broken schema) stays out of the group, not the group
			// with it; the next reconciliation tries again.
			p := e.projections[k.name]
			if err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return createTables(ctx, tx, p, k.generation, true) }); err != nil {
				e.log.Error("projection: create tables (tried again by the next reconciliation)", "projection", k.name, "generation", k.generation, "err", err)
				continue
			}
			e.created[k] = true
		}
		live = append(live, k)
	}
	for k := range e.joined {
		if _, ok := want[k]; !ok {
			delete(e.joined, k)
			delete(e.created, k)
		}
	}
	e.mu.Lock()
	var stopped []chan struct{} // solo consumers of generations now in the live group
	for k, c := range e.solo {
		if state, ok := want[k]; !ok || state == "active" && e.joined[k] && e.created[k] {
			c.cancel()
			delete(e.solo, k)
			stopped = append(stopped, c.done)
		}
	}
	for k, state := range want {
		if _, ok := e.solo[k]; ok || slices.Contains(live, k) || state == "active" && e.joined[k] {
			continue
		}
		runCtx, cancel := context.WithCancel(ctx)
		c := &consumer{cancel: cancel, done: make(chan struct{})}
		e.solo[k] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(c.done)
			e.runGroup(runCtx, e.GroupID(k.name, k.generation), []genKey{k}, state == "active")
			// A generation that stopped by itself (its tables could not be
			// created while the database was down, say) is started again by
			// the next reconciliation; one stopped by reconcile stays stopped.
			e.mu.Lock()
			if runCtx.Err() == nil && e.solo[k] == c {
				delete(e.solo, k)
			}
			e.mu.Unlock()
			cancel()
		}()
	}
	if e.live == nil || !slices.Equal(e.live.keys, live) {
		e.startLive(ctx, wg, live, stopped)
	}
	e.mu.Unlock()
	for k, state := range want {
		if state != "building" {
			continue
		}
		behind, err := e.behind(ctx, client, k)
		if err != nil {
			return err
		}
		if behind > 0 {
			continue
		}
		missing, err := e.missingFromActive(ctx, k)
		if err != nil {
			return err
		}
		if missing > 0 {
			if e.held[k] != missing {
				e.held[k] = missing
				e.log.Error("projection: rebuilt generation caught up but is held back: it parked events the active generation applied",
					"projection", k.name, "generation", k.generation, "events", missing)
			}
			continue
		}
		if err := e.activate(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// catchUpSlack is how far behind the log (events on a partition) an
// active generation may be and still join the live group: the group then
// catches it up from its checkpoint in a few batches.
func catchUpSlack(cfg RunnerConfig) int64 { return int64(cfg.BatchSize) }

// startLive replaces the live group by one of keys (none: no group), once
// the group it replaces and the solo consumers of its new members (stopped)
// have stopped: their partitions are released and their last batches
// committed before it reads the checkpoints. Callers hold e.mu.
func (e *Engine) startLive(ctx context.Context, wg *sync.WaitGroup, keys []genKey, stopped []chan struct{}) {
	if old := e.live; old != nil {
		old.cancel()
		stopped = append(stopped, old.done)
	}
	e.live = nil
	if len(keys) == 0 {
		return
	}
	runCtx, cancel := context.WithCancel(ctx)
	live := &liveGroup{consumer: consumer{cancel: cancel, done: make(chan struct{})}, keys: keys}
	e.live = live
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(live.done)
		for _, done := range stopped {
			<-done
		}
		if runCtx.Err() == nil {
			e.runGroup(runCtx, e.LiveGroupID(), keys, true)
		}
		// Stopped by itself (the consumer group could not be made, say):
		// the next reconciliation starts it again.
		e.mu.Lock()
		if runCtx.Err() == nil && e.live == live {
			e.live = nil
		}
		e.mu.Unlock()
		cancel()
	}()
}

// runGroup consumes the generations keys (all active, or one being built)
// as the consumer group id until ctx ends. A generation being rebuilt is
// filled without its deferred indexes.
func (e *Engine) runGroup(ctx context.Context, id string, keys []genKey, active bool) {
	log := e.log.With("group", id)
	if len(keys) == 1 {
		log = e.log.With("projection", keys[0].name, "generation", keys[0].generation)
	}
	runnerCfg := e.cfg.Runner
	if !active {
		runnerCfg.BatchSize = runnerCfg.RebuildBatchSize
	}
	var members []*runner
	topics := map[*runner][]string{}
	for _, k := range keys {
		p := e.projections[k.name]
		if len(keys) == 1 { // a live group's tables are created by reconcile
			if err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return createTables(ctx, tx, p, k.generation, active) }); err != nil {
				log.Error("projection: create tables (tried again by the next reconciliation)", "err", err)
				return
			}
		}
		r := e.runner(p, k.generation, active, runnerCfg)
		members = append(members, r)
		for _, c := range p.Contexts() {
			topics[r] = append(topics[r], e.cfg.Kafka.Topics.ForContext(c))
		}
	}
	h := newGroup(members, topics, e.pool, runnerCfg, log, e.broadcast)
	cfg := e.cfg.Kafka.ConsumerGroupConfig()
	cfg.Consumer.Fetch.Default = 4 << 20
	// A fetch returns as soon as one event is there and otherwise waits
	// 500 ms at the broker (sarama's defaults). A group's transactions are
	// as large under load either way (it gathers its own batch from the
	// claim), while a fetch that waited for 64 KiB or 50 ms held a lone
	// event up to 50 ms (read-your-writes waited for it) and made every idle
	// projection poll the broker 20 times a second: 13 projections cost the
	// broker ~0.05 cores doing nothing (BenchmarkIdlePlatform).
	cfg.Consumer.Fetch.Min = 1
	cfg.Consumer.MaxWaitTime = 500 * time.Millisecond
	cfg.ChannelBufferSize = runnerCfg.BatchSize * 2
	// One group reads every topic, each of few partitions: the range
	// strategy (per topic) would give the first processes in its order the
	// same partitions of every topic, and a third process none.
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRoundRobin()}
	group, err := sarama.NewConsumerGroup(e.cfg.Kafka.Brokers, id, cfg)
	if err != nil {
		log.Error("projection: consumer group", "err", err)
		return
	}
	defer group.Close()
	log.Info("projection: running", "topics", h.Topics(), "projections", len(members))
	for ctx.Err() == nil {
		if err := group.Consume(ctx, h.Topics(), h); err != nil && ctx.Err() == nil {
			log.Warn("projection: consume", "err", err)
			retry.Sleep(ctx, time.Second)
		}
	}
}

// runner makes the runner of one generation of p.
func (e *Engine) runner(p Projection, generation int, active bool, cfg RunnerConfig) *runner {
	r := &runner{p: p, generation: generation, pool: e.pool, cfg: cfg, dead: e.dead,
		log: e.log.With("projection", p.Name(), "generation", generation), names: Resolver(p, generation)}
	if !active {
		r.deferred = deferredIndexes(p, generation)
	}
	if s, ok := p.(StreamSkipper); ok {
		r.skips = s.SkipsStreams()
	}
	if o, ok := p.(OneEventStreams); ok {
		r.singles = map[string]string{}
		for typ, table := range o.OneEventStreams() {
			r.singles[typ] = r.names.Replace(table)
		}
	}
	return r
}

// LiveGroupID is the consumer group of the active generations, shared by
// every process (each claims some of the partitions).
func (e *Engine) LiveGroupID() string {
	return e.cfg.Kafka.Topics.Group("projections.live")
}

// GroupID is the consumer group of one generation of a projection.
func (e *Engine) GroupID(name string, generation int) string {
	return e.cfg.Kafka.Topics.Group(fmt.Sprintf("projection.%s.g%d", name, generation))
}

// behind is how far a generation's checkpoints are behind the log: the
// most events waiting on one of its partitions.
func (e *Engine) behind(ctx context.Context, client sarama.Client, k genKey) (int64, error) {
	rows, err := e.pool.Query(ctx, `SELECT topic, partition, next_offset FROM proj_checkpoints WHERE projection=$1 AND generation=$2`, k.name, k.generation)
	if err != nil {
		return 0, err
	}
	type tp struct {
		topic string
		part  int32
	}
	next := map[tp]int64{}
	for rows.Next() {
		var t tp
		var n int64
		if err := rows.Scan(&t.topic, &t.part, &n); err != nil {
			rows.Close()
			return 0, err
		}
		next[t] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var most int64
	for _, c := range e.projections[k.name].Contexts() {
		topic := e.cfg.Kafka.Topics.ForContext(c)
		parts, err := client.Partitions(topic)
		if err != nil {
			return 0, err
		}
		for _, part := range parts {
			hw, err := client.GetOffset(topic, part, sarama.OffsetNewest)
			if err != nil {
				return 0, err
			}
			most = max(most, hw-next[tp{topic, part}])
		}
	}
	return most, nil
}

// missingFromActive counts the events a building generation parked that
// the active generation did not: such a generation never goes live, since
// queries would lose what they serve today.
func (e *Engine) missingFromActive(ctx context.Context, k genKey) (int, error) {
	var n int
	err := e.pool.QueryRow(ctx, `SELECT count(*) FROM proj_failures b
		WHERE b.projection = $1 AND b.generation = $2 AND NOT EXISTS (
			SELECT 1 FROM proj_failures a JOIN proj_generations g
			  ON g.projection = a.projection AND g.generation = a.generation AND g.state = 'active'
			WHERE a.projection = b.projection AND a.event_id = b.event_id)`, k.name, k.generation).Scan(&n)
	return n, err
}

// activate builds the generation's deferred indexes, switches queries to
// it and retires the old one, in one transaction: a generation goes live
// with its indexes or not at all (a crash before the commit leaves it
// building, and the next reconciliation builds them again). The tables of
// generations older than the retired one are dropped.
func (e *Engine) activate(ctx context.Context, k genKey) error {
	p := e.projections[k.name]
	return pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 3))`, k.name); err != nil {
			return err
		}
		if err := buildIndexes(ctx, tx, k.name, k.generation, deferredIndexes(p, k.generation)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE proj_generations SET state='retired' WHERE projection=$1 AND state='active'`, k.name); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE proj_generations SET state='active', activated_at=now()
			WHERE projection=$1 AND generation=$2 AND state='building'`, k.name, k.generation)
		if err != nil || tag.RowsAffected() != 1 {
			return errors.Join(err, fmt.Errorf("generation %d of %s is not building", k.generation, k.name))
		}
		for old := k.generation - 2; old >= 1; old-- {
			for _, t := range p.Tables() {
				if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+TableName(t, old)); err != nil {
					return err
				}
			}
		}
		e.log.Info("projection: generation active", "projection", k.name, "generation", k.generation)
		return nil
	})
}

func (e *Engine) broadcast() {
	e.mu.Lock()
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

func (e *Engine) changedChan() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.changed
}
