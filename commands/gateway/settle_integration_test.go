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

// TestSettleWritesAreOneStatement: the budget rows and reservations of a
// transaction's settles are written by one statement: the reservations
// deleted, each budget row's costs added to settled and what the calls
// reserved against it released, a row missing for a scope that reserved
// nothing inserted at reserved 0.
func TestSettleWritesAreOneStatement(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	ctx := context.Background()
	org, month := "org-settle", "2026-11"
	for _, sql := range []string{
		`INSERT INTO gateway_budgets (organization_id, scope, month, settled, reserved) VALUES
			('org-settle', 'organization', '2026-11', 100, 5000), ('org-settle', 'user:u2', '2026-11', 7, 0)`,
		`INSERT INTO gateway_reservations (request_id, organization_id, amount, scopes, month, call, expires_at) VALUES
			('r1', 'org-settle', 2000, '{organization}', '2026-11', '{}', now() + interval '1 hour'),
			('r2', 'org-settle', 3000, '{organization}', '2026-11', '{}', now() + interval '1 hour'),
			('r3', 'org-settle', 1000, '{}', '2026-11', '{}', now() + interval '1 hour')`,
	} {
		if _, err := h.App.Pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	writes := gatewaycmd.SettleWrites(org, []domain.UsageRecordedV1{
		{RequestID: "r1", PrincipalID: "k1", UserID: "u1", Cost: 1500, Reserved: 2000, Month: month},
		{RequestID: "r2", PrincipalID: "k2", UserID: "u2", Cost: 2500, Reserved: 3000, Month: month},
	}, [][]string{{"organization"}, {"organization"}})
	if len(writes) != 1 {
		t.Fatalf("the settles' shared writes are %d statements, want 1", len(writes))
	}
	tx, err := h.App.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, writes[0].SQL, writes[0].Args...); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		scope             string
		settled, reserved int64
	}{{"organization", 4100, 0}, {"user:u1", 1500, 0}, {"user:u2", 2507, 0}} {
		var settled, reserved int64
		if err := h.App.Pool.QueryRow(ctx, `SELECT settled, reserved FROM gateway_budgets WHERE organization_id = $1 AND scope = $2 AND month = $3`,
			org, want.scope, month).Scan(&settled, &reserved); err != nil {
			t.Fatalf("%s: %v", want.scope, err)
		}
		if settled != want.settled || reserved != want.reserved {
			t.Fatalf("%s: settled %d, reserved %d; want %d, %d", want.scope, settled, reserved, want.settled, want.reserved)
		}
	}
	if n := h.Count(t, `SELECT count(*) FROM gateway_reservations WHERE organization_id = $1`, org); n != 1 {
		t.Fatalf("%d reservations left, want the unsettled one", n)
	}
}
