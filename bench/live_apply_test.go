package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/notifications"
	"github.com/platform/backend/notifications/contracts"
	statusmap "github.com/platform/backend/notifications/status"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
	statusview "github.com/platform/backend/projections/status"
)

const (
	liveApplyEvents    = 60_000 // BenchmarkDiagLiveApply
	liveApplyIncidents = 64     // as BenchmarkIncidentUpdatesHTTP's
	liveApplyBatch     = 40     // the runner's batches under that benchmark's load: ~30-55 events
)

// BenchmarkDiagLiveApply is a diagnostic, skipped unless BENCH_DIAG=1: the
// status and history projections applying incident updates in batches the
// size of those the HTTP command load makes (liveApplyBatch events over 64
// incidents), from a filled topic, without the command path beside them.
// It gives the projections' CPU an event (Go, PostgreSQL) with far less
// noise than BenchmarkDiagCommandPath's difference of two loaded runs.
// BENCH_NOTIFY=1 adds the notification projection (each incident event
// maps to one delivery-log row, checked against its contract), and
// BENCH_NOTIFY=only applies it alone: its CPU an event.
func BenchmarkDiagLiveApply(b *testing.B) {
	if os.Getenv("BENCH_DIAG") != "1" {
		b.Skip("diagnostic: set BENCH_DIAG=1")
	}
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		rig := newReplayRig(b, "blive", statusEvents("org-bench", liveApplyEvents, liveApplyIncidents))
		ps := []projections.Projection{statusview.Projection{}, history.Projection{Sources: []string{"status"}}}
		switch os.Getenv("BENCH_NOTIFY") {
		case "1":
			ps = append(ps, notificationProjection(b, rig))
		case "only":
			ps = []projections.Projection{notificationProjection(b, rig)}
		}
		engine, err := projections.NewEngine(rig.pool, projections.EngineConfig{Kafka: rig.cfg, PollInterval: 100 * time.Millisecond,
			Runner: projections.RunnerConfig{BatchSize: liveApplyBatch, RebuildBatchSize: liveApplyBatch}}, &countingDeadLetters{}, quietLog(), ps...)
		must(b, err)
		must(b, engine.Init(ctx))
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		b.StartTimer()
		cpu0 := sampleCPU(rig.pool.Config().ConnConfig.Database)
		start := time.Now()
		go func() { done <- engine.Run(runCtx) }()
		for _, p := range ps {
			for {
				if caught, _ := caughtUp(b, rig.pool, p.Name(), 1, rig.topic, rig.highWater); caught {
					break
				}
				if time.Since(start) > 5*time.Minute {
					b.Fatal("projections did not catch up in 5 minutes")
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		elapsed := time.Since(start)
		cpu := cpu0.to(sampleCPU(rig.pool.Config().ConnConfig.Database))
		b.StopTimer()
		cancel()
		must(b, <-done)
		applied := len(ps) * rig.events // each event by every projection
		b.ReportMetric(float64(applied)/elapsed.Seconds(), "projection-events/s")
		b.Logf("live-shaped apply (%s, batches of %d, %d incidents): %d events in %.2fs; per projection-event: %s; the database's own backends %.1f µs",
			names(ps), liveApplyBatch, liveApplyIncidents, rig.events, elapsed.Seconds(), cpu.perOp(applied, "projection-event"), cpu.backendsPerOp(applied))
	}
}

// notificationProjection is the notification projection platformd runs,
// with the status mapping, on the rig's database.
func notificationProjection(b *testing.B, rig *replayRig) projections.Projection {
	must(b, notifications.Migrate(context.Background(), rig.pool))
	reg, err := contracts.Load()
	must(b, err)
	return &notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": statusmap.Mapping.Map}}
}

func names(ps []projections.Projection) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name()
	}
	return strings.Join(out, " + ")
}
