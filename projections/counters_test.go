package projections

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A batch's Adds to one row become one row of one upsert per table and
// columns, with the values summed.
func TestCounterGroupsSumPerRow(t *testing.T) {
	var g counterGroups
	for _, s := range []Statement{
		Add("{{daily}}", []string{"org", "day"}, []any{"o1", "2026-11-24"}, []string{"calls", "cost"}, 1, 10),
		Add("{{daily}}", []string{"org", "day"}, []any{"o2", "2026-11-24"}, []string{"calls", "cost"}, 1, 5),
		Add("{{daily}}", []string{"org", "day"}, []any{"o1", "2026-11-24"}, []string{"calls", "cost"}, 1, 7),
		Add("{{monthly}}", []string{"org"}, []any{"o1"}, []string{"calls"}, 3),
	} {
		if err := g.add(s.counter); err != nil {
			t.Fatal(err)
		}
	}
	b := &pgx.Batch{}
	if err := g.queue(b, strings.NewReplacer("{{daily}}", "daily_g1", "{{monthly}}", "monthly_g1")); err != nil {
		t.Fatal(err)
	}
	if len(b.QueuedQueries) != 2 {
		t.Fatalf("%d statements, want one per table", len(b.QueuedQueries))
	}
	daily := b.QueuedQueries[0]
	if !strings.Contains(daily.SQL, "INSERT INTO daily_g1 AS t (org, day, calls, cost)") ||
		!strings.Contains(daily.SQL, "ON CONFLICT (org, day) DO UPDATE SET calls = t.calls + EXCLUDED.calls, cost = t.cost + EXCLUDED.cost") {
		t.Fatalf("daily upsert: %s", daily.SQL)
	}
	rows := daily.Arguments[0].(string)
	if !strings.Contains(rows, `{"calls":2,"cost":17,"day":"2026-11-24","org":"o1"}`) || !strings.Contains(rows, `{"calls":1,"cost":5,"day":"2026-11-24","org":"o2"}`) ||
		strings.Count(rows, `"org"`) != 2 {
		t.Fatalf("daily rows %s: want o1 summed (2 calls, 17) and o2", rows)
	}
	if err := g.add(Add("t", []string{"a"}, nil, []string{"n"}, 1).counter); err == nil {
		t.Fatal("an Add without its key values was accepted")
	}
}
