package projections_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
)

// TestHistoryPayloadAsWritten: the audit history keeps an event's payload
// as the event carries it (json: its members in their order, no jsonb
// normal form), and a generation created before, whose payload is jsonb,
// is left as it is and keeps working (its COPY, its erasure, its queries)
// until a rebuild gives it the json column.
func TestHistoryPayloadAsWritten(t *testing.T) {
	r := newHistoryRig(t)
	ctx := context.Background()
	// Generation 1 as a deployment from before has it: payload jsonb.
	if _, err := r.pool.Exec(ctx, `CREATE TABLE history_events_g1 (
		event_id uuid PRIMARY KEY, organization_id text NOT NULL, stream_type text NOT NULL, stream_id text NOT NULL,
		stream_version bigint NOT NULL, event_type text NOT NULL, schema_version int NOT NULL,
		actor_id text NOT NULL, actor_type text NOT NULL, occurred_at timestamptz NOT NULL, recorded_at timestamptz NOT NULL,
		correlation_id text NOT NULL, causation_id text NOT NULL, idempotency_key text NOT NULL, payload jsonb NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	p := ledgerHistory()
	const written = `{"z":1,"a":"words","m":[2,1]}`
	var entries []eventstore.Event
	for v := range 40 { // more than the runner's COPY threshold in one batch
		entries = append(entries, ledgerEvent("entry-1", "ledger.entry.added", int64(v+1), written))
	}
	r.publish(append(entries,
		ledgerEvent("note-1", "ledger.note.added", 1, `{"note_id":"n","body":"words to erase"}`),
		ledgerEvent("note-1", "ledger.note.erased", 2, `{"note_id":"n"}`))...)

	payloads := func(gen int) (entry, note string) {
		t.Helper()
		tbl := fmt.Sprintf("history_events_g%d", gen)
		if err := r.pool.QueryRow(ctx, `SELECT payload::text FROM `+tbl+` WHERE stream_id = 'entry-1' AND stream_version = 40`).Scan(&entry); err != nil {
			t.Fatal(err)
		}
		if err := r.pool.QueryRow(ctx, `SELECT payload::text FROM `+tbl+` WHERE stream_id = 'note-1' AND stream_version = 1`).Scan(&note); err != nil {
			t.Fatal(err)
		}
		return entry, note
	}
	columnType := func(gen int) string {
		t.Helper()
		var typ string
		if err := r.pool.QueryRow(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
			WHERE attrelid = to_regclass($1) AND attname = 'payload'`, fmt.Sprintf("history_events_g%d", gen)).Scan(&typ); err != nil {
			t.Fatal(err)
		}
		return typ
	}

	stop := r.run(p, 0)
	apptest.Eventually(t, 30*time.Second, "g1 to record every event", func() bool { return r.tryCount(`SELECT count(*) FROM history_events_g1`) == 42 })
	stop()
	if typ := columnType(1); typ != "jsonb" {
		t.Fatalf("g1's payload became %s: an existing generation must be left as it is", typ)
	}
	entry, note := payloads(1)
	if entry != `{"a": "words", "m": [2, 1], "z": 1}` || note != `{"note_id": "n"}` {
		t.Fatalf("g1 (jsonb): entry %s, erased note %s", entry, note)
	}

	// A rebuild creates its generation with the json column: payloads as
	// written, the erasure applied all the same.
	if gen, err := projections.RequestRebuild(ctx, r.pool, "history"); err != nil || gen != 2 {
		t.Fatalf("rebuild: %d %v", gen, err)
	}
	r.run(p, 0)
	apptest.Eventually(t, 30*time.Second, "g2 to go live", func() bool { return r.state(2) == "active" })
	if typ := columnType(2); typ != "json" {
		t.Fatalf("g2's payload is %s, want json", typ)
	}
	if entry, note := payloads(2); entry != written || note != `{"note_id": "n"}` {
		t.Fatalf("g2 (json): entry %s, want %s as written; erased note %s", entry, written, note)
	}

	// The audit route's query reads it (and hides nothing it should show).
	q := history.NewQueries(r.pool, projections.NewReader(r.pool, nil), nil, p.Rules)
	list, _, err := q.List(ctx, history.Filter{OrganizationID: "org-ledger", StreamID: "entry-1", Limit: 500})
	if err != nil || len(list) != 40 || string(list[39].Payload) != written {
		t.Fatalf("List: %v, %d entries", err, len(list))
	}
	if n := r.dead.n.Load(); n != 0 {
		t.Fatalf("%d events parked", n)
	}
}
