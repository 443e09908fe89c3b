package projections

import (
	"cmp"
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
	last      []Last // Tally's latest-value columns
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
	sql := statementSQL("add\x00"+table+"\x00"+strings.Join(keys, ",")+"\x00"+strings.Join(sums, ","), func() string {
		cols := append(slices.Clone(keys), sums...)
		params := make([]string, len(cols))
		set := make([]string, len(sums))
		for i := range cols {
			params[i] = fmt.Sprintf("$%d", i+1)
		}
		for i, s := range sums {
			set[i] = s + " = t." + s + " + EXCLUDED." + s
		}
		return "INSERT INTO " + table + " AS t (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(params, ", ") + ") ON CONFLICT (" +
			strings.Join(keys, ", ") + ") DO UPDATE SET " + strings.Join(set, ", ")
	})
	args := append(slices.Clone(keyValues), anys(values)...)
	return Statement{SQL: sql, Args: args, counter: &counter{table: table, keys: keys, keyValues: keyValues, sums: sums, values: values}}
}

// Last is a column of a Tally row that takes the latest value rather than
// a sum: of the batch's Tallies to the same row, the last whose Value is not
// nil gives it (nil: this event leaves the column alone). Insert is the
// column's value in a new row, SQL over the batch row's columns ("" for
// the column itself); Update its value in an existing row, SQL over t (the
// row) and EXCLUDED (the batch row, its sums summed, after Insert), ""
// to leave an existing row's value.
type Last struct {
	Column, Insert, Update string
	Value                  any
}

// Tally is Add with Last columns beside the sums: the runner merges a
// batch's Tallies to the same row in Go (sums added, each Last column the
// batch's last non-nil value) and writes each row once, in one multi-row
// upsert per table after the batch's other statements, rows in key order.
// Statements of the batch that write the same table run before it, so
// use it where the final row does not depend on that order (its update
// expressions set only its own columns, from the row and the batch). It
// has no single-row SQL: the runner always merges it. Every Tally of a
// table names the same Last columns with the same expressions.
func Tally(table string, keys []string, keyValues []any, sums []string, values []int64, last ...Last) Statement {
	return Statement{counter: &counter{table: table, keys: keys, keyValues: keyValues, sums: sums, values: values, last: last}}
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
	last   []any
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
	for _, l := range c.last {
		id += "\x00" + l.Column + "\x01" + l.Insert + "\x01" + l.Update
	}
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
		r = &counterRow{values: c.keyValues, sums: make([]int64, len(c.sums)), last: make([]any, len(c.last))}
		grp.rows[string(raw)] = r
	}
	for i, v := range c.values {
		r.sums[i] += v
	}
	for i, l := range c.last {
		if l.Value != nil {
			r.last[i] = l.Value
		}
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
		selected := slices.Clone(cols)
		set := make([]string, 0, len(c.sums)+len(c.last))
		for _, s := range c.sums {
			set = append(set, s+" = t."+s+" + EXCLUDED."+s)
		}
		for _, l := range c.last {
			cols = append(cols, l.Column)
			selected = append(selected, cmp.Or(l.Insert, l.Column))
			if l.Update != "" {
				set = append(set, l.Column+" = "+l.Update)
			}
		}
		values := make([][]any, 0, len(grp.rows))
		for _, r := range grp.rows {
			v := make([]any, 0, len(cols))
			v = append(v, r.values...)
			for _, x := range r.sums {
				v = append(v, x)
			}
			v = append(v, r.last...)
			values = append(values, v)
		}
		raw, err := encodeObjects(cols, values)
		if err != nil {
			return fmt.Errorf("encode rows for %s: %w", c.table, err)
		}
		colList := strings.Join(cols, ", ")
		b.Queue(names.Replace(`INSERT INTO `+c.table+` AS t (`+colList+`) SELECT `+strings.Join(selected, ", ")+` FROM jsonb_populate_recordset(NULL::`+c.table+
			`, $1::jsonb) ORDER BY `+strings.Join(c.keys, ", ")+` ON CONFLICT (`+strings.Join(c.keys, ", ")+`) DO UPDATE SET `+strings.Join(set, ", ")),
			string(raw))
	}
	return nil
}
