package gateway_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// batchNames keeps, for each batch a pool sends (one round trip), the
// strings of its []string arguments.
type batchNames struct {
	mu      sync.Mutex
	batches [][]string
}

func (b *batchNames) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var names []string
	for _, q := range d.Batch.QueuedQueries {
		for _, a := range q.Arguments {
			if ids, ok := a.([]string); ok {
				names = append(names, ids...)
			}
		}
	}
	b.mu.Lock()
	b.batches = append(b.batches, names)
	b.mu.Unlock()
	return ctx
}
func (b *batchNames) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (b *batchNames) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData)     {}
func (b *batchNames) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (b *batchNames) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// naming counts the batches that named id.
func (b *batchNames) naming(id string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, names := range b.batches {
		if slices.Contains(names, id) {
			n++
		}
	}
	return n
}

// TestSettleIsOneRoundTrip: a call's settle (its usage event, on the
// stream named by its request id) reaches the database in one round trip:
// nothing is read before it is decided; the call is recorded once.
func TestSettleIsOneRoundTrip(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(h.App.Pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	trips := &batchNames{}
	cfg.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	handlers := gatewaycmd.NewHandlers(eventstore.NewStore(pool, h.Config.Kafka.Topics), pool, nil, gatewaycmd.Config{}, nil)
	call := gatewaycmd.Call{Caller: gatewaycmd.Caller{OrganizationID: h.OrgID, PrincipalID: "u", PrincipalType: "user"},
		Action: "ai.completions", Provider: "ai_provider_1", Model: "gpt-4o-mini", Operation: prices.OpChat, Estimate: prices.Units{InputTokens: 10}}
	receipt, _, err := handlers.Metered(ctx, call, func(context.Context) gatewaycmd.Attempt {
		return gatewaycmd.Attempt{Units: prices.Units{InputTokens: 10, OutputTokens: 5}}
	})
	if err != nil {
		t.Fatal(err)
	}
	stream := domain.UsageStreamID(receipt.RequestID)
	if n := trips.naming(stream); n != 1 {
		t.Fatalf("the settle of %s took %d round trips, want 1", stream, n)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id = $1`, stream); n != 1 {
		t.Fatalf("%d usage events, want 1", n)
	}
	if n := h.Count(t, `SELECT count(*) FROM gateway_reservations WHERE request_id = $1`, receipt.RequestID); n != 0 {
		t.Fatalf("the reservation stayed after the settle")
	}
}
