package gateway_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// TestUncappedReservationsAreOneInsert: a batch of reservations none of
// whose organizations has an active hard cap writes its rows in one insert
// (counted by a statement trigger on gateway_reservations), every item
// reserved with nothing held; a batch that meets a hard cap still reserves
// item by item against it, and refuses what would pass it.
func TestUncappedReservationsAreOneInsert(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	ctx := context.Background()
	pool := h.App.Pool
	for _, sql := range []string{
		`CREATE TABLE reservation_inserts (n int NOT NULL)`,
		`CREATE FUNCTION count_reservation_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN INSERT INTO reservation_inserts VALUES (1); RETURN NULL; END $$`,
		`CREATE TRIGGER count_reservation_inserts AFTER INSERT ON gateway_reservations
			FOR EACH STATEMENT EXECUTE FUNCTION count_reservation_inserts()`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	reserve := func(orgs []string, amount int64) (held [][]string, refused []*string, inserts int) {
		t.Helper()
		if _, err := pool.Exec(ctx, `TRUNCATE reservation_inserts`); err != nil {
			t.Fatal(err)
		}
		n := len(orgs)
		ids, users, months, amounts, calls := make([]string, n), make([]string, n), make([]string, n), make([]int64, n), make([]string, n)
		for i := range orgs {
			ids[i], users[i], months[i], amounts[i], calls[i] = uuid.NewString(), "user:u", "2026-11", amount, `{"action":"ai.completions"}`
		}
		rows, err := pool.Query(ctx, `SELECT ord, held, refused FROM gateway_reserve_batch($1, $2, $3, $4, $5,
			array_fill(now() + interval '1 hour', ARRAY[cardinality($1::text[])]), $6::jsonb[]) ORDER BY ord`,
			ids, orgs, users, months, amounts, calls)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var ord int
			var h []string
			var r *string
			if err := rows.Scan(&ord, &h, &r); err != nil {
				t.Fatal(err)
			}
			held, refused = append(held, h), append(refused, r)
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		var kept int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM gateway_reservations WHERE request_id = ANY($1)`, ids).Scan(&kept); err != nil {
			t.Fatal(err)
		}
		for _, r := range refused {
			if r == nil {
				kept--
			}
		}
		if kept != 0 {
			t.Fatalf("reservations kept do not match the items reserved (off by %d)", kept)
		}
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM reservation_inserts`).Scan(&inserts); err != nil {
			t.Fatal(err)
		}
		return held, refused, inserts
	}

	held, refused, inserts := reserve([]string{"org-a", "org-a", "org-b", h.OrgID}, 1_000_000)
	if inserts != 1 || len(held) != 4 {
		t.Fatalf("uncapped batch of 4: %d insert statements, %d results; want 1 and 4", inserts, len(held))
	}
	for i := range held {
		if len(held[i]) != 0 || refused[i] != nil {
			t.Fatalf("uncapped item %d: held %v, refused %v", i, held[i], refused[i])
		}
	}

	// A hard cap of 1.5 cents on the harness's organization: its items take
	// the loop; the second of them would pass the cap.
	m := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "apptest", Type: "system"}}
	mode := "hard"
	if _, err := apptest.Provided[*gatewaycmd.Handlers](h).UpsertSpendCap(ctx, m,
		gatewaycmd.UpsertSpendCap{ScopeType: "organization", MonthlyCapCents: 1.5, CapMode: &mode}); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM gateway_reservations`); err != nil {
		t.Fatal(err)
	}
	held, refused, inserts = reserve([]string{"org-a", h.OrgID, h.OrgID}, 1_000_000)
	if inserts != 2 {
		t.Fatalf("batch meeting a hard cap: %d insert statements, want one an item reserved (2)", inserts)
	}
	if len(held[0]) != 0 || refused[0] != nil || len(held[1]) != 1 || held[1][0] != "organization" || refused[1] != nil || refused[2] == nil {
		t.Fatalf("batch meeting a hard cap: held %v, refused %v; want the uncapped item free, the first capped one held, the second refused",
			held, refused)
	}
}
