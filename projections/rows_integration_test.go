package projections

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/internal/testenv"
)

// label is a named string type, as the reducers' domain types are.
type label string

// TestInsertRowsAsTheJSONRowsWrote: Insert rows of every column type the
// platform's Insert tables use (text, int, bigint, boolean, jsonb,
// timestamptz, uuid, nullable text, jsonb written from EncodedJSON and
// json.RawMessage), with the awkward values (quotes, backslashes, unicode,
// control characters, HTML characters, invalid UTF-8, extreme integers,
// nanoseconds, JSON null), are stored exactly as the former
// jsonb_populate_recordset rows stored them (the same rows written both
// ways, compared by their text), and the values that must come back
// unchanged do. The same for Update's merged rows.
func TestInsertRowsAsTheJSONRowsWrote(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testenv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const columns = `k int PRIMARY KEY, s text NOT NULL, n int NOT NULL, b bigint NOT NULL, ok boolean NOT NULL, j jsonb NOT NULL,
		at timestamptz NOT NULL, id uuid NOT NULL, opt text, lbl text NOT NULL, e jsonb, nj jsonb, seq bigserial`
	for _, table := range []string{"typed_g1", "reference_g1"} {
		if _, err := conn.Exec(ctx, `CREATE TABLE `+table+` (`+columns+`)`); err != nil {
			t.Fatal(err)
		}
	}
	cols := []string{"k", "s", "n", "b", "ok", "j", "at", "id", "opt", "lbl", "e", "nj"}
	awkward := "quote \" backslash \\ tab \t newline \n \x01\x1f é 😀 \u2028 <a href='x'>&amp;</a>"
	opt := "optional ' text"
	zone := time.FixedZone("", -(9*3600 + 30*60))
	base := time.Date(2026, 11, 27, 15, 4, 5, 0, time.UTC)
	rows := [][]any{
		{1, awkward, math.MinInt32, int64(math.MaxInt64), true, json.RawMessage(`{"b": 1.5e300, "a": [1, "x\"y", null, {"k": "\u00e9\u001f"}]}`),
			base.Add(1500 * time.Nanosecond), uuid.MustParse("0191e3c2-7d1e-7c0a-9f7e-3f6f4a3b2c1d"), nil, label("a"), EncodedJSON(`{"z":"\u003c\u0026\u003e"}`), json.RawMessage("null")},
		{2, "", 0, int64(math.MinInt64), false, json.RawMessage(`[]`),
			base.Add(2500 * time.Nanosecond).In(zone), uuid.New(), &opt, label(""), EncodedJSON(nil), json.RawMessage(` {"n": null} `)},
		{3, "invalid \xff\xfe utf-8 \xe2\x82", math.MaxInt32, int64(-1), true, json.RawMessage(`"just a string"`),
			base.Add(999_999_999), uuid.Nil, (*string)(nil), label("ünïcode"), EncodedJSON(`null`), json.RawMessage(nil)},
		{4, "plain", 7, int64(7), false, json.RawMessage(`{}`),
			time.Date(1, 1, 1, 0, 0, 0, 499, time.UTC), uuid.New(), "text", label("b"), EncodedJSON(`[1,2]`), nil},
	}
	var g rowGroups
	for _, r := range rows {
		if err := g.add(Insert("{{typed}}", cols, "ON CONFLICT DO NOTHING", r...).row); err != nil {
			t.Fatal(err)
		}
	}
	b := &pgx.Batch{}
	if _, err := g.queue(b, strings.NewReplacer("{{typed}}", "typed_g1")); err != nil {
		t.Fatal(err)
	}
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatalf("insert: %v", err)
	}
	// The reference: the same rows as JSON, typed by jsonb_populate_recordset.
	values := make([][]any, len(rows))
	copy(values, rows)
	raw, err := encodeObjects(cols, values)
	if err != nil {
		t.Fatal(err)
	}
	list := strings.Join(cols, ", ")
	if _, err := conn.Exec(ctx, `INSERT INTO reference_g1 (`+list+`) SELECT `+list+
		` FROM jsonb_populate_recordset(NULL::reference_g1, $1::jsonb) ON CONFLICT DO NOTHING`, string(raw)); err != nil {
		t.Fatal(err)
	}
	// Updates of two rows, merged into one UPDATE, and the same rows
	// through the former jsonb_populate_recordset UPDATE.
	set := []string{"s", "j", "at", "opt", "lbl", "e", "nj"}
	updates := [][]any{
		{2, 5, "updated \" \x7f \xc3", json.RawMessage(`{"u": "\ud83d\ude00"}`), base.Add(-500 * time.Nanosecond), nil, label("u"), EncodedJSON(`{"a":1}`), json.RawMessage(`[null]`)},
		{4, 8, "", json.RawMessage(`{"x": null}`), base.Add(time.Nanosecond), &opt, label("v"), EncodedJSON(nil), json.RawMessage("null")},
		{1, math.MinInt32, "below the row's version: left alone", json.RawMessage(`{}`), base, nil, label("x"), EncodedJSON(`1`), nil},
	}
	var ug updateGroups
	for _, u := range updates {
		if err := ug.add(Update("{{typed}}", "k", "n", set, u...).update); err != nil {
			t.Fatal(err)
		}
	}
	b = &pgx.Batch{}
	if err := ug.queue(b, strings.NewReplacer("{{typed}}", "typed_g1")); err != nil {
		t.Fatal(err)
	}
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatalf("update: %v", err)
	}
	ucols := append([]string{"k", "n"}, set...)
	if raw, err = encodeObjects(ucols, updates); err != nil {
		t.Fatal(err)
	}
	assign := make([]string, 0, len(ucols)-1)
	for _, c := range ucols[1:] {
		assign = append(assign, c+" = v."+c)
	}
	if _, err := conn.Exec(ctx, `UPDATE reference_g1 AS t SET `+strings.Join(assign, ", ")+
		` FROM jsonb_populate_recordset(NULL::reference_g1, $1::jsonb) AS v WHERE t.k = v.k AND t.n < v.n`, string(raw)); err != nil {
		t.Fatal(err)
	}
	got, want := rowTexts(t, conn, "typed_g1"), rowTexts(t, conn, "reference_g1")
	if len(got) != len(rows) {
		t.Fatalf("%d rows stored, want %d", len(got), len(rows))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("row %d stored as\n%s\nthe JSON rows stored\n%s", i+1, got[i], want[i])
		}
	}
	var s, lbl string
	var n int32
	var big int64
	var at time.Time
	var nullJSON bool
	if err := conn.QueryRow(ctx, `SELECT s, n, b, at, lbl, nj IS NULL FROM typed_g1 WHERE k = 1`).Scan(&s, &n, &big, &at, &lbl, &nullJSON); err != nil {
		t.Fatal(err)
	}
	if s != awkward || n != math.MinInt32 || big != math.MaxInt64 || !at.Equal(base.Add(2*time.Microsecond)) || lbl != "a" || !nullJSON {
		t.Errorf("row 1 reads %q %d %d %v %q (JSON null as SQL NULL: %v)", s, n, big, at, lbl, nullJSON)
	}
	var updated string
	if err := conn.QueryRow(ctx, `SELECT string_agg(k || ':' || n || ':' || lbl, ' ' ORDER BY k) FROM typed_g1`).Scan(&updated); err != nil ||
		updated != "1:-2147483648:a 2:5:u 3:2147483647:ünïcode 4:8:v" {
		t.Errorf("rows after the updates: %q (%v)", updated, err)
	}
	// Rows in the order they were given (the sequence a dispatcher reads
	// them by), and a second Insert of the same keys does nothing.
	var ordered bool
	if err := conn.QueryRow(ctx, `SELECT array_agg(k ORDER BY seq) = '{1,2,3,4}' FROM typed_g1`).Scan(&ordered); err != nil || !ordered {
		t.Errorf("rows not stored in their order (%v)", err)
	}
	b = &pgx.Batch{}
	if _, err := g.queue(b, strings.NewReplacer("{{typed}}", "typed_g1")); err != nil {
		t.Fatal(err)
	}
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatalf("insert again: %v", err)
	}
	if again := rowTexts(t, conn, "typed_g1"); strings.Join(again, "\n") != strings.Join(got, "\n") {
		t.Errorf("the conflict clause let a second insert change the rows:\n%s", strings.Join(again, "\n"))
	}
}

// rowTexts is each row of table as PostgreSQL prints it (UTC), by key.
func rowTexts(t *testing.T, conn *pgx.Conn, table string) []string {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `SET TIME ZONE 'UTC'`); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT (t.*)::text FROM `+table+` t ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}
