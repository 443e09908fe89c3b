package gateway_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// streamReads counts the statements sent with a stream id among their
// arguments (a []string argument holding it), by stream id.
type streamReads struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *streamReads) note(args []any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range args {
		if ids, ok := a.([]string); ok {
			for _, id := range ids {
				s.n[id]++
			}
		}
	}
}

func (s *streamReads) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[id]
}

func (s *streamReads) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.note(d.Args)
	return ctx
}
func (s *streamReads) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *streamReads) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (s *streamReads) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.note(d.Args)
}
func (s *streamReads) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TestMetersReactorReadsBillingOncePerBatch: the meters reactor reads an
// organization's billing state (its caps) once for a batch of its usage
// events, not once per event, and every event is still counted with the
// caps; an organization with neither meters nor billing has its events
// passed over without being decoded.
func TestMetersReactorReadsBillingOncePerBatch(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(h.App.Pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	reads := &streamReads{n: map[string]int{}}
	cfg.ConnConfig.Tracer = reads
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	handlers := gatewaycmd.NewHandlers(eventstore.NewStore(pool, h.Config.Kafka.Topics), pool, nil, gatewaycmd.Config{}, nil)

	// A soft cap with a threshold: the organization's usage is counted on
	// its meters stream.
	mode := "soft"
	m := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "apptest", Type: "system"}}
	if _, err := handlers.UpsertSpendCap(ctx, m, gatewaycmd.UpsertSpendCap{ScopeType: "organization", MonthlyCapCents: 1000,
		CapMode: &mode, NotifyThresholds: []float64{50}}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	var events []eventstore.Event
	for range 5 {
		id := uuid.NewString()
		payload, err := json.Marshal(domain.UsageRecordedV1{RequestID: id, PrincipalID: "u", PrincipalType: "user", AppID: "app", UseCase: "chat",
			Action: "ai.completions", Provider: "ai_provider_1", Model: "gpt-4o-mini", Operation: prices.OpChat,
			Units: prices.Units{InputTokens: 10, OutputTokens: 10}, Outcome: domain.OutcomeOK, ProviderCost: 1000, Cost: 1000,
			Month: domain.Month(now), OccurredAt: now})
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, eventstore.Event{ID: uuid.New(), Type: domain.UsageRecorded, SchemaVersion: 1, StreamType: domain.StreamUsage,
			StreamID: domain.UsageStreamID(id), StreamVersion: 1, OrganizationID: h.OrgID, OccurredAt: now, RecordedAt: now, Payload: payload})
	}
	// Another organization, without meters or billing: its event is not
	// even decoded (this payload would not decode).
	events = slices.Insert(events, 2, eventstore.Event{ID: uuid.New(), Type: domain.UsageRecorded, SchemaVersion: 1, StreamType: domain.StreamUsage,
		StreamID: domain.UsageStreamID(uuid.NewString()), StreamVersion: 1, OrganizationID: "org-without-meters", OccurredAt: now, RecordedAt: now,
		Payload: json.RawMessage(`{"units": "not units"}`)})

	billing := domain.BillingStreamID(h.OrgID)
	before := reads.count(billing)
	r := handlers.MetersReactor()
	bctx := r.Prepare(ctx, events)
	for _, e := range events {
		if err := r.React(bctx, e); err != nil {
			t.Fatalf("react to %s of %s: %v", e.ID, e.OrganizationID, err)
		}
	}
	// The batch's heads (one statement naming the billing stream among the
	// others) and one read of the billing stream.
	if n := reads.count(billing) - before; n != 2 {
		t.Fatalf("the billing stream was named by %d statements for a batch of 5 usage events; want 2 (the heads, one read)", n)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id = $1 AND event_type = $2`, domain.MetersStreamID(h.OrgID), domain.MeterConsumed); n != 5 {
		t.Fatalf("%d consumptions on the meters stream, want 5", n)
	}
}
