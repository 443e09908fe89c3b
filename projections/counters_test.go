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

// Tallies to one row are merged: counts summed, each Last column the last
// non-nil value of the batch, with the insert and update expressions asked.
func TestTallyMergesLastValues(t *testing.T) {
	var g counterGroups
	tally := func(ok int64, at any, errWord any, latency int64) Statement {
		return Tally("{{health}}", []string{"org"}, []any{"o1"}, []string{"ok"}, []int64{ok},
			Last{Column: "status", Insert: "'unknown'"},
			Last{Column: "at", Update: "COALESCE(EXCLUDED.at, t.at)", Value: at},
			Last{Column: "err", Insert: "COALESCE(err, '')", Update: "CASE WHEN EXCLUDED.ok < 1 THEN EXCLUDED.err ELSE t.err END", Value: errWord},
			Last{Column: "ms", Update: "EXCLUDED.ms", Value: latency})
	}
	for _, s := range []Statement{tally(1, "t1", nil, 5), tally(0, nil, "boom", 7), tally(1, "t3", nil, 9)} {
		if err := g.add(s.counter); err != nil {
			t.Fatal(err)
		}
	}
	b := &pgx.Batch{}
	if err := g.queue(b, strings.NewReplacer("{{health}}", "health_g1")); err != nil {
		t.Fatal(err)
	}
	if len(b.QueuedQueries) != 1 {
		t.Fatalf("%d statements, want one", len(b.QueuedQueries))
	}
	q := b.QueuedQueries[0]
	want := "INSERT INTO health_g1 AS t (org, ok, status, at, err, ms) SELECT org, ok, 'unknown', at, COALESCE(err, ''), ms FROM jsonb_populate_recordset(NULL::health_g1, $1::jsonb) ORDER BY org ON CONFLICT (org) DO UPDATE SET ok = t.ok + EXCLUDED.ok, at = COALESCE(EXCLUDED.at, t.at), err = CASE WHEN EXCLUDED.ok < 1 THEN EXCLUDED.err ELSE t.err END, ms = EXCLUDED.ms"
	if q.SQL != want {
		t.Fatalf("upsert:\n%s\nwant\n%s", q.SQL, want)
	}
	if rows := q.Arguments[0].(string); rows != `[{"at":"t3","err":"boom","ms":9,"ok":2,"org":"o1","status":null}]` {
		t.Fatalf("rows %s", rows)
	}
}
