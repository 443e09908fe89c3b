package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
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
	var rate, raw, applyRate, sameSQL, perEvent float64
	var startup time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		cfg := kafkaConfig(b, "breplay")
		topic := cfg.Topics.ForContext("status")
		must(b, eventstore.EnsureTopics(cfg, topic, cfg.Topics.DeadLetter()))
		events := statusEvents("org-bench", replayEvents, replayIncidents)
		msgs := make([]*sarama.ProducerMessage, len(events))
		for i, e := range events {
			m, err := e.ToMessage(topic)
			must(b, err)
			msgs[i] = m
		}
		sendAll(b, newProducer(b, cfg), msgs)
		highWater := highWaterMarks(b, cfg, topic)

		pool := newPool(b, 16)
		must(b, projections.Migrate(ctx, pool))
		rawBefore := rawUpsertRate(b, pool, events)
		sameSQL = rawReducerRate(b, pool, events)
		perEvent = reducerStatements(events)

		dead := &countingDeadLetters{}
		engine, err := projections.NewEngine(pool, projections.EngineConfig{Kafka: cfg, PollInterval: 100 * time.Millisecond},
			dead, quietLog(), statusview.Projection{})
		must(b, err)
		must(b, engine.Init(ctx))
		batches0 := counter("platform_projection_batches_total", "projection", statusview.Name)
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)

		b.StartTimer()
		cpu0 := sampleCPU(pool.Config().ConnConfig.Database)
		start := time.Now()
		go func() { done <- engine.Run(runCtx) }()
		var first time.Time
		for {
			caught, started := caughtUp(b, pool, topic, highWater)
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
		elapsed := time.Since(start)
		cpu := cpu0.to(sampleCPU(pool.Config().ConnConfig.Database))
		b.StopTimer()

		cancel()
		if err := <-done; err != nil {
			b.Fatalf("engine: %v", err)
		}
		// The ceiling is the better of two raw runs, before and after, as
		// other load on the machine comes and goes.
		rawAfter := rawUpsertRate(b, pool, events)
		raw = max(rawBefore, rawAfter)
		b.Logf("raw batched upserts, same events: %.0f rows/s before the replay, %.0f after", rawBefore, rawAfter)
		batches := counter("platform_projection_batches_total", "projection", statusview.Name) - batches0
		var incidents, updates int
		must(b, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM status_incidents_g1), (SELECT count(*) FROM status_incident_updates_g1)`).
			Scan(&incidents, &updates))
		if incidents != replayIncidents || updates != len(events) || dead.n.Load() != 0 {
			b.Fatalf("read model has %d incidents and %d updates (want %d, %d); %d parked", incidents, updates,
				replayIncidents, len(events), dead.n.Load())
		}
		rate = float64(len(events)) / elapsed.Seconds()
		startup = first.Sub(start)
		applyRate = float64(len(events)) / elapsed.Seconds()
		if d := elapsed - startup; d > 0 {
			// Events of the first batch were applied before `first`; this slightly overstates.
			applyRate = float64(len(events)) / d.Seconds()
		}
		b.Logf("replay: %d events, %.0f batches (avg %.0f events/batch), %.2fs from engine start (first checkpoint after %.0f ms): %.0f events/s; %.0f events/s after the first batch",
			len(events), batches, float64(len(events))/batches, elapsed.Seconds(), ms(startup), rate, applyRate)
		b.Logf("replay: %s", cpu.perOp(len(events), "event"))
	}
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(raw, "raw-rows/s")
	b.ReportMetric(rate/raw, "ratio")
	b.ReportMetric(ms(startup), "startup-ms")
	b.ReportMetric(applyRate, "apply-events/s")
	b.ReportMetric(sameSQL, "raw-reducer-events/s")
	bar := "MET"
	if rate < raw/2 {
		bar = "NOT MET"
	}
	b.Logf("diagnostic: the status reducer's own statements (%.1f per event), sent raw in transactions of %d events on one connection: %.0f events/s; the engine reaches %.2f of that",
		perEvent, upsertBatch, sameSQL, rate/sameSQL)
	b.Logf("replay %.0f events/s vs raw batched upserts %.0f rows/s: ratio %.2f (bar >= 0.50: %s)", rate, raw, rate/raw, bar)
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
func caughtUp(b *testing.B, pool *pgxpool.Pool, topic string, highWater map[int32]int64) (bool, bool) {
	b.Helper()
	rows, err := pool.Query(context.Background(), `SELECT partition, next_offset FROM proj_checkpoints
		WHERE projection=$1 AND generation=1 AND topic=$2`, statusview.Name, topic)
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
