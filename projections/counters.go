package projections

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// counter is one Add of a reducer.
type counter struct {
	table     string
	keys      []string
	keyValues []any
	sums      []string
	values    []int64
}

// Add is a counter row: the row of table whose key columns hold keyValues
// (the table's primary key or a unique index) gets values added to its sum
// columns, and is created with them when missing. The runner sums a batch's
// Adds to the same row in Go and writes each row once, in one multi-row
// upsert per table and columns, after the batch's other statements, rows in
// key order (so two batches never lock rows in opposite orders): a batch of
// usage events bumps a daily total once instead of once per event. So use
// it only for tables the projection writes with Add alone. Key values are
// encoded as JSON and typed by the table's columns.
func Add(table string, keys []string, keyValues []any, sums []string, values ...int64) Statement {
	cols := append(slices.Clone(keys), sums...)
	params := make([]string, len(cols))
	set := make([]string, len(sums))
	for i := range cols {
		params[i] = fmt.Sprintf("$%d", i+1)
	}
	for i, s := range sums {
		set[i] = s + " = t." + s + " + EXCLUDED." + s
	}
	args := append(slices.Clone(keyValues), anys(values)...)
	return Statement{
		SQL: "INSERT INTO " + table + " AS t (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(params, ", ") + ") ON CONFLICT (" +
			strings.Join(keys, ", ") + ") DO UPDATE SET " + strings.Join(set, ", "),
		Args:    args,
		counter: &counter{table: table, keys: keys, keyValues: keyValues, sums: sums, values: values},
	}
}

func anys(v []int64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

// counterGroups sums a batch's Adds per table, columns and row.
type counterGroups struct {
	order  []string
	groups map[string]*counterGroup
}

type counterGroup struct {
	first *counter
	rows  map[string]*counterRow // by the key values' JSON
}

type counterRow struct {
	values []any
	sums   []int64
}

func (g *counterGroups) add(c *counter) error {
	if len(c.keyValues) != len(c.keys) || len(c.values) != len(c.sums) {
		return fmt.Errorf("add to %s: %d key values for %d keys, %d values for %d sums", c.table, len(c.keyValues), len(c.keys),
			len(c.values), len(c.sums))
	}
	if g.groups == nil {
		g.groups = map[string]*counterGroup{}
	}
	id := c.table + "\x00" + strings.Join(c.keys, ",") + "\x00" + strings.Join(c.sums, ",")
	grp, ok := g.groups[id]
	if !ok {
		grp = &counterGroup{first: c, rows: map[string]*counterRow{}}
		g.groups[id] = grp
		g.order = append(g.order, id)
	}
	raw, err := json.Marshal(c.keyValues)
	if err != nil {
		return fmt.Errorf("encode key of %s: %w", c.table, err)
	}
	r, ok := grp.rows[string(raw)]
	if !ok {
		r = &counterRow{values: c.keyValues, sums: make([]int64, len(c.sums))}
		grp.rows[string(raw)] = r
	}
	for i, v := range c.values {
		r.sums[i] += v
	}
	return nil
}

// queue adds one multi-row upsert per group (jsonb_populate_recordset types
// the rows by the table's own columns, as Insert's rows are), its rows
// ordered by key.
func (g *counterGroups) queue(b *pgx.Batch, names *strings.Replacer) error {
	for _, id := range g.order {
		grp := g.groups[id]
		c := grp.first
		cols := append(slices.Clone(c.keys), c.sums...)
		values := make([][]any, 0, len(grp.rows))
		for _, r := range grp.rows {
			v := make([]any, 0, len(cols))
			v = append(v, r.values...)
			for _, x := range r.sums {
				v = append(v, x)
			}
			values = append(values, v)
		}
		raw, err := encodeObjects(cols, values)
		if err != nil {
			return fmt.Errorf("encode rows for %s: %w", c.table, err)
		}
		colList := strings.Join(cols, ", ")
		set := make([]string, len(c.sums))
		for i, s := range c.sums {
			set[i] = s + " = t." + s + " + EXCLUDED." + s
		}
		b.Queue(names.Replace(`INSERT INTO `+c.table+` AS t (`+colList+`) SELECT `+colList+` FROM jsonb_populate_recordset(NULL::`+c.table+
			`, $1::jsonb) ORDER BY `+strings.Join(c.keys, ", ")+` ON CONFLICT (`+strings.Join(c.keys, ", ")+`) DO UPDATE SET `+strings.Join(set, ", ")),
			string(raw))
	}
	return nil
}
