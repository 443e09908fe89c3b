package projections

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A batch's Updates of a table and columns are one UPDATE, each key's row
// at the highest version of the batch whatever the order they came in; a
// lone row keeps its single-row UPDATE.
func TestUpdatesMergedPerKey(t *testing.T) {
	names := strings.NewReplacer("{{items}}", "items_g3", "{{other}}", "other_g3")
	cols := []string{"note"}
	var g updateGroups
	for _, s := range []Statement{
		Update("{{items}}", "id", "revision", cols, "a", 2, "a2"),
		Update("{{items}}", "id", "revision", cols, "b", 5, "b5"),
		Update("{{items}}", "id", "revision", cols, "a", 4, "a4"),
		Update("{{items}}", "id", "revision", cols, "a", 3, "a3"), // below a4: a4 stays
		Update("{{other}}", "id", "revision", cols, "x", 1, "x1"),
	} {
		if err := g.add(s.update); err != nil {
			t.Fatal(err)
		}
	}
	b := &pgx.Batch{}
	if err := g.queue(b, names); err != nil {
		t.Fatal(err)
	}
	if len(b.QueuedQueries) != 2 {
		t.Fatalf("queued %d statements, want one per table", len(b.QueuedQueries))
	}
	merged, lone := b.QueuedQueries[0], b.QueuedQueries[1]
	if merged.SQL != "UPDATE items_g3 AS t SET revision = v.revision, note = v.note FROM unnest(COALESCE($1, ARRAY[(NULL::items_g3).id]), "+
		"COALESCE($2, ARRAY[(NULL::items_g3).revision]), COALESCE($3, ARRAY[(NULL::items_g3).note])) AS v(id, revision, note) "+
		"WHERE t.id = v.id AND t.revision < v.revision" {
		t.Fatalf("merged SQL %q", merged.SQL)
	}
	if rows := fmt.Sprint(merged.Arguments); rows != "[[a b] [4 5] [a4 b5]]" {
		t.Fatalf("merged rows %s, want a at 4 and b at 5", rows)
	}
	if lone.SQL != "UPDATE other_g3 SET revision=$2, note=$3 WHERE id=$1 AND revision < $2" || len(lone.Arguments) != 3 || lone.Arguments[2] != "x1" {
		t.Fatalf("lone row: %q %v", lone.SQL, lone.Arguments)
	}
	var bad updateGroups
	for _, s := range []Statement{Update("{{items}}", "id", "revision", cols, "a", 2, "a2"), Update("{{items}}", "id", "revision", cols, "a", int64(3), "a3")} {
		if err := bad.add(s.update); err != nil && !strings.Contains(err.Error(), "not integers of one type") {
			t.Fatalf("versions of two types: %v", err)
		} else if err != nil {
			return
		}
	}
	t.Fatal("versions of two Go types must be refused, not compared")
}

// An Update's SQL and group are found by its columns slice (columnsRef)
// only while the slice holds the columns they were made of: a reducer that
// reuses a slice for other columns, or passes equal columns in another
// slice, gets the statement of the columns it passes.
func TestUpdateTargetFollowsTheColumns(t *testing.T) {
	cols := []string{"note", "title"}
	first := Update("{{items}}", "id", "revision", cols, "a", 1, "n", "t")
	if want := "UPDATE {{items}} SET revision=$2, note=$3, title=$4 WHERE id=$1 AND revision < $2"; first.SQL != want {
		t.Fatalf("SQL %q, want %q", first.SQL, want)
	}
	cols[1] = "body" // the same slice, another column
	second := Update("{{items}}", "id", "revision", cols, "a", 2, "n", "b")
	if want := "UPDATE {{items}} SET revision=$2, note=$3, body=$4 WHERE id=$1 AND revision < $2"; second.SQL != want {
		t.Fatalf("after the slice changed: SQL %q, want %q", second.SQL, want)
	}
	if strings.Join(second.update.columns, ",") != "id,revision,note,body" {
		t.Fatalf("after the slice changed: columns %v", second.update.columns)
	}
	third := Update("{{items}}", "id", "revision", []string{"note", "body"}, "b", 1, "n", "b")
	if third.SQL != second.SQL {
		t.Fatalf("equal columns in another slice: %q, want %q", third.SQL, second.SQL)
	}
	var g updateGroups
	for _, s := range []Statement{first, second, third} {
		if err := g.add(s.update); err != nil {
			t.Fatal(err)
		}
	}
	if len(g.order) != 2 {
		t.Fatalf("%d groups, want 2 (note,title and note,body)", len(g.order))
	}
}

func BenchmarkUpdate(b *testing.B) {
	cols := []string{"title", "message", "severity", "status", "updated_at"}
	b.ReportAllocs()
	for b.Loop() {
		Update("{{status_incidents}}", "incident_id", "revision", cols, "inc", 2, "t", "m", "s", "st", "at")
	}
}

// Insert's targets are found by the same columnsRef cache: a slice changed
// in place gets the statement of the columns it now holds.
func TestInsertTargetFollowsTheColumns(t *testing.T) {
	cols := []string{"id", "title"}
	first := Insert("{{items}}", cols, "ON CONFLICT DO NOTHING", "a", "t")
	if want := "INSERT INTO {{items}} (id, title) VALUES ($1,$2) ON CONFLICT DO NOTHING"; first.SQL != want {
		t.Fatalf("SQL %q, want %q", first.SQL, want)
	}
	cols[1] = "body"
	second := Insert("{{items}}", cols, "ON CONFLICT DO NOTHING", "a", "b")
	if want := "INSERT INTO {{items}} (id, body) VALUES ($1,$2) ON CONFLICT DO NOTHING"; second.SQL != want {
		t.Fatalf("after the slice changed: SQL %q, want %q", second.SQL, want)
	}
	if third := Insert("{{items}}", cols, "", "a", "b"); third.SQL != "INSERT INTO {{items}} (id, body) VALUES ($1,$2)" {
		t.Fatalf("another conflict clause, the same slice: SQL %q", third.SQL)
	}
}
