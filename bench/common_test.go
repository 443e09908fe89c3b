// Package bench measures the platform against raw ceilings measured in the
// same run on the same broker and database server: see README.md.
//
// Every benchmark runs one fixed workload per b.N iteration (setup is outside
// the timer) and reports rates with b.ReportMetric; the intended invocation is
// -benchtime=1x, but the workloads are sized so that the default -benchtime=1s
// also runs each of them once.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/pgtypes"
	"github.com/platform/backend/internal/testenv"
)

// Workload sizes. They are fixed so that every run of `make bench` measures
// the same thing; each timed part takes more than a second on a 2-core box.
const (
	kafkaBatch      = 500     // messages per SendMessages, as the relay's default batch
	rawKafkaEvents  = 200_000 // BenchmarkRawKafkaProduce
	rawKafkaValue   = 400     // bytes per value in BenchmarkRawKafkaProduce
	relayEvents     = 40_000  // BenchmarkRelay
	upsertBatch     = 500     // upserts per transaction, as the runner's default batch
	rawUpsertRows   = 50_000  // BenchmarkRawUpsert
	replayEvents    = 40_000  // BenchmarkProjectionReplay
	replayIncidents = 2_000   // streams the replay events are spread over
	historyEvents   = 100_000 // BenchmarkHistoryReplay
	httpIncidents   = 64      // BenchmarkIncidentUpdatesHTTP
	httpClients     = 32
	httpUpdates     = 6_000
	httpWarmup      = 1_000 // untimed updates before each timed HTTP run
)

// quietLog is for components whose warnings would only be noise here.
func quietLog() *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("PLATFORM_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

var discardLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// kafkaConfig is a config on the real broker with a topic prefix of its own.
func kafkaConfig(b *testing.B, name string) eventstore.KafkaConfig {
	b.Helper()
	brokers := testenv.KafkaBrokers(b)
	return eventstore.KafkaConfig{
		Brokers: brokers,
		Topics:  eventstore.Topics{Prefix: testenv.TopicPrefix(b, brokers, name)},
	}.WithDefaults()
}

// newProducer is a SyncProducer with exactly the relay's configuration.
func newProducer(b *testing.B, cfg eventstore.KafkaConfig) sarama.SyncProducer {
	b.Helper()
	p, err := sarama.NewSyncProducer(cfg.Brokers, cfg.ProducerConfig())
	if err != nil {
		b.Fatalf("producer: %v", err)
	}
	b.Cleanup(func() { _ = p.Close() })
	return p
}

// newPool opens a pool on a fresh database of the stack's server.
func newPool(b *testing.B, maxConns int32) *pgxpool.Pool {
	b.Helper()
	return poolOn(b, testenv.NewDatabase(b), maxConns)
}

// poolOn is a pool of its own on an existing database.
func poolOn(b *testing.B, databaseURL string, maxConns int32) *pgxpool.Pool {
	b.Helper()
	pc, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		b.Fatal(err)
	}
	pc.MaxConns = maxConns
	pgtypes.Configure(pc) // as the platform's pools (app.OpenPool)
	pool, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// sendAll sends msgs in SendMessages batches of kafkaBatch and returns the
// elapsed time.
func sendAll(b *testing.B, p sarama.SyncProducer, msgs []*sarama.ProducerMessage) time.Duration {
	b.Helper()
	start := time.Now()
	for i := 0; i < len(msgs); i += kafkaBatch {
		if err := p.SendMessages(msgs[i:min(i+kafkaBatch, len(msgs))]); err != nil {
			b.Fatalf("send: %v", err)
		}
	}
	return time.Since(start)
}

// rawKafkaRate is the relay's ceiling: the same messages sent by a bare
// SyncProducer with the relay's configuration, to a fresh topic on the same
// broker, in batches of kafkaBatch. It returns messages per second.
func rawKafkaRate(b *testing.B, cfg eventstore.KafkaConfig, events []eventstore.Event) float64 {
	b.Helper()
	topic := cfg.Topics.ForContext("rawceiling")
	must(b, eventstore.EnsureTopics(cfg, topic))
	p := newProducer(b, cfg)
	msgs := make([]*sarama.ProducerMessage, len(events))
	for i, e := range events {
		m, err := e.ToMessage(topic)
		must(b, err)
		msgs[i] = m
	}
	// One batch first so that metadata and the producer id are fetched
	// outside the measurement (the relay's producer is warm too).
	warm, _ := events[0].ToMessage(topic)
	must(b, p.SendMessages([]*sarama.ProducerMessage{warm}))
	return float64(len(msgs)) / sendAll(b, p, msgs).Seconds()
}

// statusEvents builds n status events over `incidents` incident streams:
// every incident is created, then updated round after round, so that
// consecutive events belong to different streams (as under real load).
func statusEvents(org string, n, incidents int) []eventstore.Event {
	ids := make([]string, incidents)
	for i := range ids {
		ids[i] = uuid.Must(uuid.NewV7()).String()
	}
	statuses := []string{domain.Identified, domain.Monitoring, domain.Investigating}
	base := time.Now().UTC().Add(-time.Hour)
	host, name := "api.example.com", "Public API"
	out := make([]eventstore.Event, 0, n)
	for k := 0; len(out) < n; k++ {
		i, round := k%incidents, k/incidents
		version := int64(round + 1)
		at := base.Add(time.Duration(k) * time.Millisecond)
		var typ string
		var payload any
		if round == 0 {
			typ = domain.IncidentCreated
			payload = domain.IncidentCreatedV1{IncidentID: ids[i], Title: fmt.Sprintf("Elevated error rate on API node %d", i),
				Message: "We are investigating elevated error rates on the public API.", Severity: "major",
				ComponentHost: &host, ComponentName: &name, Status: domain.Investigating, Revision: 1, OccurredAt: at}
		} else {
			typ = domain.IncidentUpdated
			payload = domain.IncidentUpdatedV1{IncidentID: ids[i], Status: statuses[round%len(statuses)],
				Message: fmt.Sprintf("Update %d: the fix is being rolled out region by region.", round), Severity: "major",
				Title: fmt.Sprintf("Elevated error rate on API node %d", i), Revision: round + 1, OccurredAt: at,
				ComponentHost: &host, ComponentName: &name}
		}
		raw, _ := json.Marshal(payload)
		out = append(out, eventstore.Event{
			ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: 1, StreamType: domain.StreamIncident,
			StreamID: ids[i], StreamVersion: version, OrganizationID: org,
			Actor: eventstore.Actor{ID: "bench-key", Type: "api_key"}, OccurredAt: at, RecordedAt: at,
			CorrelationID: uuid.Must(uuid.NewV7()).String(), Payload: raw,
		})
	}
	return out
}

// messageBytes is the average encoded size (value + headers) of events.
func messageBytes(events []eventstore.Event) float64 {
	total := 0
	for _, e := range events {
		m, _ := e.ToMessage("t")
		total += m.Value.Length()
		for _, h := range m.Headers {
			total += len(h.Key) + len(h.Value)
		}
	}
	return float64(total) / float64(len(events))
}

// --- raw PostgreSQL ceilings ------------------------------------------------

// incidentsDDL is a table shaped like the status read model's status_incidents.
func incidentsDDL(table string) []string {
	return []string{
		`CREATE TABLE ` + table + ` (
			organization_id text NOT NULL, incident_id text PRIMARY KEY, title text NOT NULL, message text NOT NULL,
			severity text NOT NULL, status text NOT NULL, revision int NOT NULL,
			component_host text, component_name text, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
		`CREATE INDEX ON ` + table + ` (organization_id, created_at DESC)`,
	}
}

// rawUpsertRate upserts one row per event (keyed by incident id) into a fresh
// table shaped like status_incidents, one transaction per upsertBatch rows
// sent as one pgx.Batch, on one connection. It returns rows per second.
func rawUpsertRate(b *testing.B, pool *pgxpool.Pool, events []eventstore.Event) float64 {
	b.Helper()
	ctx := context.Background()
	table := "bench_" + testenv.UniqueName("upsert")
	for _, ddl := range incidentsDDL(table) {
		_, err := pool.Exec(ctx, ddl)
		must(b, err)
	}
	type row struct {
		id, title, message, status string
		revision                   int
		at                         time.Time
	}
	rows := make([]row, len(events))
	for i, e := range events {
		p, err := eventstore.Decode[domain.IncidentUpdatedV1](e) // the created payload has the same members
		must(b, err)
		rows[i] = row{p.IncidentID, p.Title, p.Message, p.Status, p.Revision, p.OccurredAt}
	}
	sql := `INSERT INTO ` + table + ` (organization_id, incident_id, title, message, severity, status, revision,
		component_host, component_name, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$10)
		ON CONFLICT (incident_id) DO UPDATE SET title=EXCLUDED.title, message=EXCLUDED.message, severity=EXCLUDED.severity,
		status=EXCLUDED.status, revision=EXCLUDED.revision, updated_at=EXCLUDED.updated_at`
	conn, err := pool.Acquire(ctx)
	must(b, err)
	defer conn.Release()
	start := time.Now()
	for i := 0; i < len(rows); i += upsertBatch {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			batch := &pgx.Batch{}
			for _, r := range rows[i:min(i+upsertBatch, len(rows))] {
				batch.Queue(sql, "org", r.id, r.title, r.message, "major", r.status, r.revision, "api.example.com", "Public API", r.at)
			}
			return tx.SendBatch(ctx, batch).Close()
		})
		must(b, err)
	}
	return float64(len(rows)) / time.Since(start).Seconds()
}

// commitStats is the outcome of a closed-loop load of small transactions.
type commitStats struct {
	rate     float64 // transactions per second
	p50, p99 time.Duration
}

// rawCommitRate is the ceiling of a command: `clients` concurrent
// connections each committing one-row INSERT transactions (a row shaped like
// an es_events row) into a fresh table, n in total. With fsync and
// synchronous_commit on, this is the server's durable commit rate.
func rawCommitRate(b *testing.B, pool *pgxpool.Pool, clients, n int) commitStats {
	b.Helper()
	commit := rawCommitter(b, pool)
	var next atomic.Int64
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				t := time.Now()
				if err := commit(k); err != nil {
					failed.Store(err)
					return
				}
				lat[k] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		b.Fatalf("raw commit: %v", err)
	}
	p := percentiles(lat, 0.50, 0.99)
	return commitStats{rate: float64(n) / elapsed.Seconds(), p50: p[0], p99: p[1]}
}

// rawCommitter makes a fresh table and answers the raw commit of
// rawCommitRate: one transaction inserting one row (shaped like an
// es_events row), row k of stream k mod 64.
func rawCommitter(b *testing.B, pool *pgxpool.Pool) func(k int) error {
	b.Helper()
	ctx := context.Background()
	table := "bench_" + testenv.UniqueName("commits")
	_, err := pool.Exec(ctx, `CREATE TABLE `+table+` (
		global_seq bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, stream_id text NOT NULL, stream_version bigint NOT NULL,
		event_type text NOT NULL, organization_id text NOT NULL, occurred_at timestamptz NOT NULL, payload jsonb NOT NULL,
		topic text NOT NULL, UNIQUE (stream_id, stream_version))`)
	must(b, err)
	payload := []byte(`{"incident_id":"x","incident_status":"identified","message":"Update: the fix is being rolled out region by region.","severity":"major","title":"Elevated error rate","revision":2}`)
	return func(k int) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			batch := &pgx.Batch{}
			batch.Queue(`INSERT INTO `+table+` (event_id, stream_id, stream_version, event_type, organization_id,
				occurred_at, payload, topic) VALUES ($1,$2,$3,'status.incident.updated','org',now(),$4,'t')`,
				uuid.Must(uuid.NewV7()), fmt.Sprint("s", k%64), k, payload)
			return tx.SendBatch(ctx, batch).Close()
		})
	}
}

// percentiles by nearest rank (d is sorted in place).
func percentiles(d []time.Duration, ps ...float64) []time.Duration {
	slices.Sort(d)
	out := make([]time.Duration, len(ps))
	for i, p := range ps {
		k := int(math.Ceil(p*float64(len(d)))) - 1
		out[i] = d[max(0, min(k, len(d)-1))]
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// counter reads a Prometheus counter of the default registry (sum over the
// series whose labels include every given pair).
func counter(name string, labels ...string) float64 {
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		return math.NaN()
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				found := false
				for _, l := range m.GetLabel() {
					if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
						found = true
					}
				}
				if !found {
					continue series
				}
			}
			total += m.GetCounter().GetValue()
		}
	}
	return total
}

// httpClientSweep is the concurrency of the HTTP load, lowest first: one
// closed-loop run per level gives the throughput/latency curve.
var httpClientSweep = []int{16, 32, 64}

// httpRawSweep is the concurrency of the raw commit ceilings: the bars'
// operating points.
var httpRawSweep = []int{16, 64}

// TestMain runs the benchmarks with platformd's garbage-collector setting
// (the platform runs in this process).
func TestMain(m *testing.M) {
	app.TuneGC()
	os.Exit(m.Run())
}
