package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
	statusview "github.com/platform/backend/projections/status"
)

// BenchmarkRawUpsert is the database's ceiling for the projection runner:
// rawUpsertRows upserts (INSERT ... ON CONFLICT DO UPDATE) into a table shaped
// like status_incidents, 500 per transaction sent as one pgx.Batch, keys
// spread over 2,000 incidents as in the replay.
func BenchmarkRawUpsert(b *testing.B) {
	pool := newPool(b, 4)
	var rate float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		events := statusEvents("org-bench", rawUpsertRows, replayIncidents)
		b.StartTimer()
		rate = rawUpsertRate(b, pool, events) // times itself; setup inside is small
	}
	b.ReportMetric(rate, "rows/s")
	b.Logf("raw pgx batched upserts, %d rows in transactions of %d: %.0f rows/s", rawUpsertRows, upsertBatch, rate)
}

// countingDeadLetters fails the benchmark's check if anything is parked.
type countingDeadLetters struct{ n atomic.Int64 }

func (d *countingDeadLetters) Park(context.Context, string, *sarama.ConsumerMessage, string) error {
	d.n.Add(1)
	return nil
}

// BenchmarkProjectionReplay produces replayEvents status events (2,000
// incidents: created, then updated round after round) as envelopes to a
// fresh topic, then times a projection engine with only the status
// projection, on a fresh database, from offset zero until its checkpoints
// reach the high-water marks. The ceiling, measured in the same benchmark
// just before, is rawUpsertRate on the same number of events.
func BenchmarkProjectionReplay(b *testing.B) {
	ctx := context.Background()
	var res replayResult
	var raw, sameSQL, perEvent float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		events := statusEvents("org-bench", replayEvents, replayIncidents)
		rig := newReplayRig(b, "breplay", events)
		rawBefore := rawUpsertRate(b, rig.pool, events)
		sameSQL = rawReducerRate(b, rig.pool, events)
		perEvent = reducerStatements(events)
		res = rig.replay(b, statusview.Projection{})
		// The ceiling is the better of two raw runs, before and after, as
		// other load on the machine comes and goes.
		rawAfter := rawUpsertRate(b, rig.pool, events)
		raw = max(rawBefore, rawAfter)
		b.Logf("raw batched upserts, same events: %.0f rows/s before the replay, %.0f after", rawBefore, rawAfter)
		var incidents, updates int
		must(b, rig.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM status_incidents_g1), (SELECT count(*) FROM status_incident_updates_g1)`).
			Scan(&incidents, &updates))
		if incidents != replayIncidents || updates != len(events) {
			b.Fatalf("read model has %d incidents and %d updates (want %d, %d)", incidents, updates, replayIncidents, len(events))
		}
	}
	b.ReportMetric(res.rate, "events/s")
	b.ReportMetric(raw, "raw-rows/s")
	b.ReportMetric(res.rate/raw, "ratio")
	b.ReportMetric(ms(res.startup), "startup-ms")
	b.ReportMetric(res.applyRate, "apply-events/s")
	b.ReportMetric(sameSQL, "raw-reducer-events/s")
	bar := "MET"
	if res.rate < 0.8*raw {
		bar = "NOT MET"
	}
	b.Logf("diagnostic: the status reducer's own statements (%.1f per event), sent raw in transactions of %d events on one connection: %.0f events/s; the engine reaches %.2f of that",
		perEvent, upsertBatch, sameSQL, res.rate/sameSQL)
	b.Logf("replay %.0f events/s vs raw batched upserts %.0f rows/s: ratio %.2f (bar >= 0.80: %s)", res.rate, raw, res.rate/raw, bar)
}

// BenchmarkHistoryReplay is the COPY path: historyEvents status events
// replayed into the audit history (one row an event, COPYd per batch), from
// engine start until the checkpoints reach the high-water marks: first into
// generation 1, active from the start (the live path: the table keeps its
// indexes), then into generation 2 by a rebuild, timed from the request
// until the generation is active (its secondary indexes, deferred, built
// once it has caught up: projections.DeferredIndexes). The ceiling,
// measured before and after (the better kept), is rawHistoryCopyRate: COPY
// of the same rows into a fresh table shaped like history_events with its
// indexes, in transactions of upsertBatch rows on one connection; the
// rebuild's own ceiling is the same COPY into the table without its
// secondary indexes, built after the load (timed with it).
func BenchmarkHistoryReplay(b *testing.B) {
	ctx := context.Background()
	var res, reb replayResult
	var raw, bulk float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		events := statusEvents("org-bench", historyEvents, replayIncidents)
		rig := newReplayRig(b, "bhistory", events)
		rawBefore, bulkBefore := rawHistoryCopyRate(b, rig.pool, events, false), rawHistoryCopyRate(b, rig.pool, events, true)
		p := history.Projection{Sources: []string{"status"}}
		res = rig.replay(b, p)
		reb = rig.rebuild(b, p)
		rawAfter, bulkAfter := rawHistoryCopyRate(b, rig.pool, events, false), rawHistoryCopyRate(b, rig.pool, events, true)
		raw, bulk = max(rawBefore, rawAfter), max(bulkBefore, bulkAfter)
		b.Logf("raw COPY of the history rows: %.0f rows/s before the replay, %.0f after; without the secondary indexes, built after: %.0f and %.0f rows/s",
			rawBefore, rawAfter, bulkBefore, bulkAfter)
		for gen := 1; gen <= 2; gen++ {
			var rows, indexes int
			must(b, rig.pool.QueryRow(ctx, fmt.Sprintf(`SELECT (SELECT count(DISTINCT event_id) FROM history_events_g%d),
				(SELECT count(*) FROM pg_indexes WHERE tablename = 'history_events_g%d')`, gen, gen)).Scan(&rows, &indexes))
			if rows != len(events) || indexes != 3 {
				b.Fatalf("history g%d has %d distinct rows and %d indexes, want %d and 3", gen, rows, indexes, len(events))
			}
		}
	}
	b.ReportMetric(res.rate, "events/s")
	b.ReportMetric(res.applyRate, "apply-events/s")
	b.ReportMetric(raw, "raw-copy-rows/s")
	b.ReportMetric(res.rate/raw, "ratio")
	b.ReportMetric(ms(res.startup), "startup-ms")
	b.ReportMetric(reb.rate, "rebuild-events/s")
	b.ReportMetric(reb.applyRate, "rebuild-apply-events/s")
	b.ReportMetric(bulk, "raw-bulk-rows/s")
	b.ReportMetric(reb.rate/bulk, "rebuild-ratio")
	b.ReportMetric(reb.rate/raw, "rebuild-ratio-indexed")
	bar := func(rate float64) string {
		if rate < 100_000 {
			return "NOT MET"
		}
		return "MET"
	}
	b.Logf("history replay into g1 (live, indexed) %.0f events/s (%.0f after the first batch) vs raw COPY %.0f rows/s: ratio %.2f (bar: the COPY path at 100,000 events/s: %s)",
		res.rate, res.applyRate, raw, res.rate/raw, bar(res.applyRate))
	b.Logf("history rebuild into g2 (indexes built once caught up), request to active %.0f events/s (%.0f after the first batch) vs raw COPY without the secondary indexes and built after %.0f rows/s: ratio %.2f; against the indexed ceiling %.2f (bar: %s)",
		reb.rate, reb.applyRate, bulk, reb.rate/bulk, reb.rate/raw, bar(reb.applyRate))
}

// replayRig is a topic filled with events and a fresh database.
type replayRig struct {
	cfg       eventstore.KafkaConfig
	topic     string
	highWater map[int32]int64
	pool      *pgxpool.Pool
	events    int
}

func newReplayRig(b *testing.B, name string, events []eventstore.Event) *replayRig {
	b.Helper()
	cfg := kafkaConfig(b, name)
	topic := cfg.Topics.ForContext("status")
	must(b, eventstore.EnsureTopics(cfg, topic, cfg.Topics.DeadLetter()))
	msgs := make([]*sarama.ProducerMessage, len(events))
	for i, e := range events {
		m, err := e.ToMessage(topic)
		must(b, err)
		msgs[i] = m
	}
	sendAll(b, newProducer(b, cfg), msgs)
	pool := newPool(b, 16)
	must(b, projections.Migrate(context.Background(), pool))
	return &replayRig{cfg: cfg, topic: topic, highWater: highWaterMarks(b, cfg, topic), pool: pool, events: len(events)}
}

// replayResult is one timed replay.
type replayResult struct {
	rate, applyRate float64 // events/s from engine start, from the first committed batch
	startup         time.Duration
}

// replay times an engine with only p from offset zero until every
// partition's checkpoint reaches its high-water mark (the timer runs
// meanwhile), and checks nothing was parked.
func (r *replayRig) replay(b *testing.B, p projections.Projection) replayResult {
	b.Helper()
	ctx := context.Background()
	dead := &countingDeadLetters{}
	// BENCH_PROJECTION_BATCH tries another batch size than the runner's default.
	batchSize, _ := strconv.Atoi(os.Getenv("BENCH_PROJECTION_BATCH"))
	engine, err := projections.NewEngine(r.pool, projections.EngineConfig{Kafka: r.cfg, PollInterval: 100 * time.Millisecond,
		Runner: projections.RunnerConfig{BatchSize: batchSize, RebuildBatchSize: batchSize}}, dead, quietLog(), p)
	must(b, err)
	must(b, engine.Init(ctx))
	batches0 := counter("platform_projection_batches_total", "projection", p.Name())
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)

	b.StartTimer()
	cpu0 := sampleCPU(r.pool.Config().ConnConfig.Database)
	start := time.Now()
	go func() { done <- engine.Run(runCtx) }()
	var first time.Time
	for {
		caught, started := caughtUp(b, r.pool, p.Name(), 1, r.topic, r.highWater)
		if started && first.IsZero() {
			first = time.Now()
		}
		if caught {
			break
		}
		if time.Since(start) > 5*time.Minute {
			b.Fatal("projection did not catch up in 5 minutes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	res, batches, elapsed, cpu := r.stop(b, p.Name(), run{start: start, first: first, cpu0: cpu0, batches0: batches0,
		cancel: cancel, done: done, dead: dead})
	b.Logf("replay (%s): %d events, %.0f batches (avg %.0f events/batch), %.2fs from engine start (first checkpoint after %.0f ms): %.0f events/s; %.0f events/s after the first batch",
		p.Name(), r.events, batches, float64(r.events)/batches, elapsed.Seconds(), ms(res.startup), res.rate, res.applyRate)
	b.Logf("replay (%s): %s; the database's own backends %.1f µs an event", p.Name(), cpu.perOp(r.events, "event"), cpu.backendsPerOp(r.events))
	return res
}

// rebuild runs an engine with only p, whose generation 1 has caught up
// (replay), requests a rebuild and times generation 2 from the request until
// it is active: consumed from offset zero, its deferred indexes built, the
// switch committed. The engine reconciles every 25 ms, so that going live
// waits little past the catching up. It checks nothing was parked.
func (r *replayRig) rebuild(b *testing.B, p projections.Projection) replayResult {
	b.Helper()
	ctx := context.Background()
	dead := &countingDeadLetters{}
	batchSize, _ := strconv.Atoi(os.Getenv("BENCH_PROJECTION_BATCH"))
	engine, err := projections.NewEngine(r.pool, projections.EngineConfig{Kafka: r.cfg, PollInterval: 25 * time.Millisecond,
		Runner: projections.RunnerConfig{BatchSize: batchSize, RebuildBatchSize: batchSize}}, dead, quietLog(), p)
	must(b, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- engine.Run(runCtx) }()
	batches0 := counter("platform_projection_batches_total", "projection", p.Name())

	b.StartTimer()
	cpu0 := sampleCPU(r.pool.Config().ConnConfig.Database)
	start := time.Now()
	gen, err := projections.RequestRebuild(ctx, r.pool, p.Name())
	must(b, err)
	var first time.Time
	for {
		var state string
		must(b, r.pool.QueryRow(ctx, `SELECT state FROM proj_generations WHERE projection=$1 AND generation=$2`, p.Name(), gen).Scan(&state))
		if state == "active" {
			break
		}
		if first.IsZero() {
			if _, started := caughtUp(b, r.pool, p.Name(), gen, r.topic, r.highWater); started {
				first = time.Now()
			}
		}
		if time.Since(start) > 5*time.Minute {
			b.Fatal("rebuild did not go live in 5 minutes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	res, batches, elapsed, cpu := r.stop(b, p.Name(), run{start: start, first: first, cpu0: cpu0, batches0: batches0,
		cancel: cancel, done: done, dead: dead})
	b.Logf("rebuild (%s g%d): %d events, %.0f batches (avg %.0f events/batch), %.2fs from the request to active (first checkpoint after %.0f ms): %.0f events/s; %.0f events/s after the first batch",
		p.Name(), gen, r.events, batches, float64(r.events)/batches, elapsed.Seconds(), ms(res.startup), res.rate, res.applyRate)
	b.Logf("rebuild (%s g%d): %s; the database's own backends %.1f µs an event", p.Name(), gen, cpu.perOp(r.events, "event"), cpu.backendsPerOp(r.events))
	return res
}

// run is a timed engine run: when it started, when its first batch
// committed, and what stops it.
type run struct {
	start, first time.Time
	cpu0         cpuSample
	batches0     float64
	cancel       context.CancelFunc
	done         <-chan error
	dead         *countingDeadLetters
}

// stop ends a timed run (the timer stops), stops its engine, checks nothing
// was parked, and gives its rates: from the start, and from the first
// committed batch (events of the first batch were applied before it, so
// that rate slightly overstates).
func (r *replayRig) stop(b *testing.B, projection string, x run) (replayResult, float64, time.Duration, cpuUse) {
	b.Helper()
	elapsed := time.Since(x.start)
	cpu := x.cpu0.to(sampleCPU(r.pool.Config().ConnConfig.Database))
	b.StopTimer()
	x.cancel()
	if err := <-x.done; err != nil {
		b.Fatalf("engine: %v", err)
	}
	if x.dead.n.Load() != 0 {
		b.Fatalf("%d events parked", x.dead.n.Load())
	}
	batches := counter("platform_projection_batches_total", "projection", projection) - x.batches0
	res := replayResult{rate: float64(r.events) / elapsed.Seconds(), startup: x.first.Sub(x.start)}
	res.applyRate = res.rate
	if d := elapsed - res.startup; d > 0 && !x.first.IsZero() {
		res.applyRate = float64(r.events) / d.Seconds()
	}
	return res, batches, elapsed, cpu
}

// rawReducerRate runs the exact statements statusview.Projection.Reduce
// returns for the events, against tables of a spare generation, in
// transactions of upsertBatch events sent as one pgx.Batch on one connection:
// the projection's SQL without Kafka, decoding, version checks or checkpoints.
func rawReducerRate(b *testing.B, pool *pgxpool.Pool, events []eventstore.Event) float64 {
	b.Helper()
	ctx := context.Background()
	p := statusview.Projection{}
	names := projections.Resolver(p, 99)
	for _, ddl := range p.Schema() {
		_, err := pool.Exec(ctx, names.Replace(ddl))
		must(b, err)
	}
	var stmts [][]projections.Statement
	for _, e := range events {
		st, err := p.Reduce(e)
		must(b, err)
		stmts = append(stmts, st)
	}
	conn, err := pool.Acquire(ctx)
	must(b, err)
	defer conn.Release()
	start := time.Now()
	for i := 0; i < len(stmts); i += upsertBatch {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			batch := &pgx.Batch{}
			for _, st := range stmts[i:min(i+upsertBatch, len(stmts))] {
				for _, s := range st {
					batch.Queue(names.Replace(s.SQL), s.Args...)
				}
			}
			return tx.SendBatch(ctx, batch).Close()
		})
		must(b, err)
	}
	return float64(len(events)) / time.Since(start).Seconds()
}

// rawHistoryCopyRate COPYs the history rows of events (the audit history's columns
// and values) into a fresh table shaped like history_events, upsertBatch
// rows a transaction on one connection: the COPY path's writes without
// Kafka, decoding or checkpoints. With its indexes; or, bulk, without the
// secondary ones (DeferredIndexes), built after the load, as a rebuild
// does (timed with the load). It returns rows per second.
func rawHistoryCopyRate(b *testing.B, pool *pgxpool.Pool, events []eventstore.Event, bulk bool) float64 {
	b.Helper()
	ctx := context.Background()
	p := history.Projection{}
	table := "bench_" + testenv.UniqueName("history")
	names := strings.NewReplacer("{{history_events}}", table)
	exec := func(ddl []string) {
		for _, d := range ddl {
			_, err := pool.Exec(ctx, names.Replace(d))
			must(b, err)
		}
	}
	exec(p.Schema())
	if !bulk {
		exec(p.DeferredIndexes())
	}
	var columns []string
	rows := make([][]any, len(events))
	for i, e := range events {
		st, err := p.Reduce(e)
		must(b, err)
		values, cols := historyRow(st[0])
		rows[i], columns = values, cols
	}
	conn, err := pool.Acquire(ctx)
	must(b, err)
	defer conn.Release()
	start := time.Now()
	for i := 0; i < len(rows); i += upsertBatch {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows[i:min(i+upsertBatch, len(rows))]))
			return err
		})
		must(b, err)
	}
	if bulk {
		exec(p.DeferredIndexes())
	}
	return float64(len(rows)) / time.Since(start).Seconds()
}

// historyRow is the row of the audit history's single-row INSERT: its
// values and columns.
func historyRow(st projections.Statement) ([]any, []string) {
	cols := st.SQL[strings.Index(st.SQL, "(")+1 : strings.Index(st.SQL, ")")]
	return st.Args, strings.Split(cols, ", ")
}

func reducerStatements(events []eventstore.Event) float64 {
	n := 0
	for _, e := range events {
		st, _ := statusview.Projection{}.Reduce(e)
		n += len(st)
	}
	return float64(n) / float64(len(events))
}

func highWaterMarks(b *testing.B, cfg eventstore.KafkaConfig, topic string) map[int32]int64 {
	b.Helper()
	client, err := sarama.NewClient(cfg.Brokers, cfg.SaramaConfig())
	must(b, err)
	defer client.Close()
	parts, err := client.Partitions(topic)
	must(b, err)
	out := map[int32]int64{}
	for _, p := range parts {
		hw, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		must(b, err)
		out[p] = hw
	}
	return out
}

// caughtUp tells whether every partition's checkpoint reached its high-water
// mark, and whether any checkpoint exists yet.
func caughtUp(b *testing.B, pool *pgxpool.Pool, projection string, generation int, topic string, highWater map[int32]int64) (bool, bool) {
	b.Helper()
	rows, err := pool.Query(context.Background(), `SELECT partition, next_offset FROM proj_checkpoints
		WHERE projection=$1 AND generation=$2 AND topic=$3`, projection, generation, topic)
	must(b, err)
	next := map[int32]int64{}
	for rows.Next() {
		var p int32
		var n int64
		must(b, rows.Scan(&p, &n))
		next[p] = n
	}
	rows.Close()
	must(b, rows.Err())
	for p, hw := range highWater {
		if next[p] < hw {
			return false, len(next) > 0
		}
	}
	return true, true
}
