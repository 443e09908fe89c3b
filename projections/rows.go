package projections

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// row is one Insert of a reducer.
type row struct {
	table    string
	columns  []string
	conflict string
	values   []any
}

func (r *row) key() string {
	return r.table + "\x00" + strings.Join(r.columns, ",") + "\x00" + r.conflict
}

// rowGroups collects a batch's Insert rows by target, in first-seen order.
type rowGroups struct {
	order  []string
	groups map[string][]*row
}

func (g *rowGroups) add(r *row) error {
	if len(r.values) != len(r.columns) {
		return fmt.Errorf("insert into %s: %d values for %d columns", r.table, len(r.values), len(r.columns))
	}
	if g.groups == nil {
		g.groups = map[string][]*row{}
	}
	k := r.key()
	if _, ok := g.groups[k]; !ok {
		g.order = append(g.order, k)
	}
	g.groups[k] = append(g.groups[k], r)
	return nil
}

// queue adds one multi-row INSERT per group: jsonb_populate_recordset turns
// the JSON array into rows of the table's own type, so no column types are
// spelled out twice.
func (g *rowGroups) queue(b *pgx.Batch, names *strings.Replacer) error {
	for _, k := range g.order {
		rows := g.groups[k]
		first := rows[0]
		objects := make([]map[string]any, len(rows))
		for i, r := range rows {
			o := make(map[string]any, len(r.columns))
			for j, c := range r.columns {
				o[c] = r.values[j]
			}
			objects[i] = o
		}
		raw, err := json.Marshal(objects)
		if err != nil {
			return fmt.Errorf("encode rows for %s: %w", first.table, err)
		}
		cols := strings.Join(first.columns, ", ")
		b.Queue(names.Replace(`INSERT INTO `+first.table+` (`+cols+`) SELECT `+cols+
			` FROM jsonb_populate_recordset(NULL::`+first.table+`, $1::jsonb) `+first.conflict), string(raw))
	}
	return nil
}
