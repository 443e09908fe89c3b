package projections

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/platform/backend/internal/jsonenc/jsonenctest"
)

// A batch's Append rows of a table go to COPY when they are many, and in
// one INSERT ... VALUES (no conflict clause) when they are few; Insert rows
// keep their multi-row INSERT with their conflict clause.
func TestAppendRowsCopiedWhenMany(t *testing.T) {
	names := strings.NewReplacer("{{log}}", "log_g2", "{{few}}", "few_g2", "{{kept}}", "kept_g2")
	var g rowGroups
	for i := range copyRows {
		for _, s := range []Statement{Append("{{log}}", []string{"id", "n"}, i, "x")} {
			if err := g.add(s.row); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, s := range []Statement{
		Append("{{few}}", []string{"id"}, 1), Append("{{few}}", []string{"id"}, 2),
		Insert("{{kept}}", []string{"id"}, "ON CONFLICT DO NOTHING", 7),
	} {
		if err := g.add(s.row); err != nil {
			t.Fatal(err)
		}
	}
	b := &pgx.Batch{}
	copies, err := g.queue(b, names)
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) != 1 || copies[0].table != "log_g2" || len(copies[0].rows) != copyRows || copies[0].rows[3][0] != 3 {
		t.Fatalf("copies %+v, want the %d rows of log_g2", copies, copyRows)
	}
	if len(b.QueuedQueries) != 2 {
		t.Fatalf("queued %d statements, want the few rows' INSERT and the Insert's", len(b.QueuedQueries))
	}
	few, kept := b.QueuedQueries[0], b.QueuedQueries[1]
	if few.SQL != "INSERT INTO few_g2 (id) VALUES ($1),($2)" || len(few.Arguments) != 2 || few.Arguments[1] != 2 {
		t.Fatalf("few rows: %q %v", few.SQL, few.Arguments)
	}
	if kept.SQL != "INSERT INTO kept_g2 (id) SELECT * FROM unnest(COALESCE($1, ARRAY[(NULL::kept_g2).id])) ON CONFLICT DO NOTHING" ||
		len(kept.Arguments) != 1 || len(kept.Arguments[0].(columnArray)) != 1 || kept.Arguments[0].(columnArray)[0] != 7 {
		t.Fatalf("Insert rows: %q", kept.SQL)
	}
	if s := Append("{{few}}", []string{"id", "n"}, 1, 2); s.SQL != "INSERT INTO {{few}} (id, n) VALUES ($1,$2)" {
		t.Fatalf("Append's single-row SQL %q", s.SQL)
	}
}

// A generation being rebuilt applies larger batches than the live one,
// never smaller ones.
func TestRunnerConfigRebuildBatchSize(t *testing.T) {
	for _, tc := range []struct{ batch, rebuild, wantBatch, wantRebuild int }{
		{0, 0, 2000, 8000},
		{20000, 0, 20000, 20000},
		{500, 1, 500, 1},
	} {
		c := RunnerConfig{BatchSize: tc.batch, RebuildBatchSize: tc.rebuild}.WithDefaults()
		if c.BatchSize != tc.wantBatch || c.RebuildBatchSize != tc.wantRebuild || c.Validate() != nil {
			t.Errorf("%+v: batches %d and %d (%v), want %d and %d", tc, c.BatchSize, c.RebuildBatchSize, c.Validate(), tc.wantBatch, tc.wantRebuild)
		}
	}
}

// encodeObjects writes the bytes json.Marshal writes for one map per row,
// whether a value takes the plain path (appendPlain) or encoding/json's.
func TestEncodeObjectsAsJSONMarshal(t *testing.T) {
	s, at := "plain", time.Date(2026, 11, 27, 12, 30, 5, 123456789, time.UTC)
	values := []any{nil, &s, (*string)(nil), 0, -42, int32(7), int64(1) << 60, true, false, at, at.In(time.FixedZone("x", -5*3600-30*60)),
		time.Time{}, at.Truncate(time.Second), 3.25, json.RawMessage(`{"a": [1, 2]}`), []string{"a"}, uint8(9),
		EncodedJSON(`{"a":[1,2],"b":"\u003cx\u003e"}`), EncodedJSON(nil)}
	for _, str := range jsonenctest.NastyStrings() {
		values = append(values, str)
	}
	var rows [][]any
	for i, v := range values {
		rows = append(rows, []any{v, i})
	}
	cols := []string{"v", "i"}
	got, err := encodeObjects(cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	maps := make([]map[string]any, len(rows))
	for i, r := range rows {
		maps[i] = map[string]any{"v": r[0], "i": r[1]}
	}
	want, err := json.Marshal(maps)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("encodeObjects wrote\n%s\njson.Marshal writes\n%s", got, want)
	}
	if _, err := encodeObjects(cols, [][]any{{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), 1}}); err == nil {
		t.Fatal("a time json.Marshal refuses must be refused")
	}
}

// TestColumnArrayEncodesAsAnySlice: a column sent as a columnArray encodes
// to the bytes pgx writes for the []any it holds, in the binary and text
// formats, for the column types rows use, NULLs and mixed types included.
func TestColumnArrayEncodesAsAnySlice(t *testing.T) {
	at := time.Date(2026, 11, 27, 23, 59, 59, 123456000, time.UTC)
	s := "x"
	cases := []struct {
		oid uint32
		col []any
	}{
		{pgtype.TextArrayOID, []any{"a", "", "é\u2028", nil, &s, (*string)(nil)}},
		{pgtype.VarcharArrayOID, []any{"a", "b"}},
		{pgtype.JSONBArrayOID, []any{json.RawMessage(`{"x":1}`), nil, json.RawMessage(`[]`)}},
		{pgtype.JSONArrayOID, []any{json.RawMessage(`{"x": 1}`), json.RawMessage(`"s"`)}},
		{pgtype.Int4ArrayOID, []any{1, -2, int32(1 << 20), nil, int64(7)}},
		{pgtype.Int8ArrayOID, []any{int64(1), int64(-1 << 40), 3}},
		{pgtype.BoolArrayOID, []any{true, false, nil}},
		{pgtype.TimestamptzArrayOID, []any{at, at.In(time.FixedZone("x", 3600)), time.Time{}, nil}},
		{pgtype.UUIDArrayOID, []any{[16]byte{1, 2, 3}, nil}},
		{pgtype.TextArrayOID, []any{}},
		{pgtype.TextArrayOID, nil},
	}
	m := pgtype.NewMap()
	for _, c := range cases {
		for _, format := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
			want, werr := m.Encode(c.oid, format, c.col, nil)
			got, err := m.Encode(c.oid, format, columnArray(c.col), nil)
			if werr != nil || err != nil || string(got) != string(want) || (got == nil) != (want == nil) {
				t.Fatalf("oid %d format %d %v: columnArray %q (%v), []any %q (%v)", c.oid, format, c.col, got, err, want, werr)
			}
		}
	}
}

// BenchmarkColumnArraysEncode is pgx's encoding of 40 rows of the
// delivery log's text and integer columns as column arrays.
func BenchmarkColumnArraysEncode(b *testing.B) {
	rows := make([][]any, 40)
	for i := range rows {
		rows[i] = []any{"status:incident:0193a6a0-7c1e-7b7e-9d1a-5a7f3c2b1e00:rev:17", "status.incident.updated", 1, "org-bench",
			"0193a6a0-7c1e-7b7e-9d1a-5a7f3c2b1e01", "pending", ""}
	}
	oids := []uint32{pgtype.TextArrayOID, pgtype.TextArrayOID, pgtype.Int4ArrayOID, pgtype.TextArrayOID, pgtype.TextArrayOID,
		pgtype.TextArrayOID, pgtype.TextArrayOID}
	m := pgtype.NewMap()
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		for j, a := range columnArrays(make([]string, len(oids)), rows) {
			var err error
			if buf, err = m.Encode(oids[j], pgtype.BinaryFormatCode, a, buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
