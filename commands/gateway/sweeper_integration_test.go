package gateway_test

import (
	"context"
	"testing"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/internal/apptest"
)

// TestSweeperSettlesAbandonedCallsOnce: a call whose settle never comes
// (here: the sweeper runs while it is still in flight, as after a crash
// between reserve and settle) is settled by the sweeper at its full
// reservation, outcome abandoned; the call's own settle afterwards appends
// nothing, and the budget counts it once.
func TestSweeperSettlesAbandonedCallsOnce(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	handlers := apptest.Provided[*gatewaycmd.Handlers](h)
	ctx := context.Background()
	call := gatewaycmd.Call{Caller: gatewaycmd.Caller{OrganizationID: h.OrgID, PrincipalID: "user-1", PrincipalType: "user", AppID: "studio", UseCase: "chat"},
		Action: "ai.completions", Provider: "ai_provider_1", Model: "gpt-4o-mini", Operation: prices.OpChat, ConnectionID: "test",
		Estimate: prices.Units{InputTokens: 1000, OutputTokens: 1000}}
	swept := make(chan int, 1)
	receipt, _, err := handlers.Metered(ctx, call, func(ctx context.Context) gatewaycmd.Attempt {
		n, err := handlers.Sweep(ctx, time.Now().Add(handlers.Config().ReservationTTL+time.Minute))
		if err != nil {
			t.Error(err)
		}
		swept <- n
		return gatewaycmd.Attempt{Units: prices.Units{InputTokens: 10, OutputTokens: 10}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := <-swept; n != 1 {
		t.Fatalf("the sweeper settled %d reservations, want 1", n)
	}
	var events int64
	var outcome string
	var cost, reserved int64
	if err := h.App.Pool.QueryRow(ctx, `SELECT count(*), min(payload->>'outcome'), min((payload->>'cost_microcents')::bigint),
		min((payload->>'reserved_microcents')::bigint) FROM es_events WHERE stream_id = $1`, "usage:"+receipt.RequestID).
		Scan(&events, &outcome, &cost, &reserved); err != nil {
		t.Fatal(err)
	}
	if events != 1 || outcome != "abandoned" || cost != reserved || cost == 0 {
		t.Fatalf("%d usage events, outcome %s, cost %d, reserved %d", events, outcome, cost, reserved)
	}
	var settled, held int64
	if err := h.App.Pool.QueryRow(ctx, `SELECT settled, reserved FROM gateway_budgets WHERE organization_id = $1 AND scope = 'organization'`,
		h.OrgID).Scan(&settled, &held); err != nil {
		t.Fatal(err)
	}
	if settled != cost || held != 0 || h.Count(t, `SELECT count(*) FROM gateway_reservations`) != 0 {
		t.Fatalf("budget settled %d reserved %d; the call cost %d", settled, held, cost)
	}
}
