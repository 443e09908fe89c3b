package gateway_test

import (
	"context"
	"testing"

	"github.com/platform/backend/commands"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// TestUncappedReservationsAreOneInsert: a batch of reservations none of
// whose organizations has an active hard cap writes its rows in one insert
// (statements inserting rows, counted by a trigger on gateway_reservations), every item
// reserved with nothing held; a batch that meets a hard cap still reserves
// item by item against it, and refuses what would pass it (402).
func TestUncappedReservationsAreOneInsert(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	ctx := context.Background()
	pool := h.App.Pool
	handlers := apptest.Provided[*gatewaycmd.Handlers](h)
	for _, sql := range []string{
		`CREATE TABLE reservation_inserts (n int NOT NULL)`,
		`CREATE FUNCTION count_reservation_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN INSERT INTO reservation_inserts SELECT 1 WHERE EXISTS (SELECT FROM inserted); RETURN NULL; END $$`,
		`CREATE TRIGGER count_reservation_inserts AFTER INSERT ON gateway_reservations REFERENCING NEW TABLE AS inserted
			FOR EACH STATEMENT EXECUTE FUNCTION count_reservation_inserts()`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	reserve := func(orgs []string, amount int64) (held [][]string, refused []error, inserts, kept int64) {
		t.Helper()
		if _, err := pool.Exec(ctx, `TRUNCATE reservation_inserts; DELETE FROM gateway_reservations`); err != nil {
			t.Fatal(err)
		}
		held, refused = handlers.ReserveBatch(ctx, orgs, "u", amount)
		return held, refused, h.Count(t, `SELECT count(*) FROM reservation_inserts`), h.Count(t, `SELECT count(*) FROM gateway_reservations`)
	}

	held, refused, inserts, kept := reserve([]string{"org-a", "org-a", "org-b", h.OrgID}, 1_000_000)
	if inserts != 1 || kept != 4 || len(held) != 4 {
		t.Fatalf("uncapped batch of 4: %d insert statements, %d reservations, %d results; want 1, 4 and 4", inserts, kept, len(held))
	}
	for i := range held {
		if len(held[i]) != 0 || refused[i] != nil {
			t.Fatalf("uncapped item %d: held %v, refused %v", i, held[i], refused[i])
		}
	}

	// A hard cap of 1.5 cents on the harness's organization: the batch
	// takes the loop; the second of its items would pass the cap.
	m := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "apptest", Type: "system"}}
	mode := "hard"
	if _, err := handlers.UpsertSpendCap(ctx, m, gatewaycmd.UpsertSpendCap{ScopeType: "organization", MonthlyCapCents: 1.5, CapMode: &mode}); err != nil {
		t.Fatal(err)
	}
	held, refused, inserts, kept = reserve([]string{"org-a", h.OrgID, h.OrgID}, 1_000_000)
	if inserts != 2 || kept != 2 {
		t.Fatalf("batch meeting a hard cap: %d insert statements, %d reservations; want one an item reserved (2)", inserts, kept)
	}
	if len(held[0]) != 0 || refused[0] != nil || len(held[1]) != 1 || held[1][0] != "organization" || refused[1] != nil ||
		errs.KindOf(refused[2]) != errs.KindPaymentRequired {
		t.Fatalf("batch meeting a hard cap: held %v, refused %v; want the uncapped item free, the first capped one held, the second refused (402)",
			held, refused)
	}
}
