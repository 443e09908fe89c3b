package projections

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"

	"github.com/jackc/pgx/v5"
)

// update is one Update of a reducer.
type update struct {
	table, key, version string
	columns             []string // key and version first
	sql                 string   // the single-row UPDATE
	group               string   // table and columns: updateGroups' key
	values              []any
}

// Update is the row of table whose key column holds keyValue taking the
// values of an event at a version (version: a column that only grows
// along the row's stream, a revision), when the row is at an earlier one:
// `UPDATE table SET c = $... WHERE key = $1 AND version < $2`. The runner
// merges a batch's Updates of the same table and columns into one
// multi-row UPDATE, after the batch's other statements, keeping for each
// key the highest version (its values are the ones that row ends with
// whatever the order: every Update sets the same columns, only a higher
// version passes the guard). So use it for rows whose other writes in a
// batch do not depend on that order: the INSERT creating the row (run
// before it) and nothing else. columns are the columns set besides the key
// and the version, values the key's, the version's, then theirs. Values
// are typed by the table's columns and stored as Insert's.
func Update(table, key, version string, columns []string, values ...any) Statement {
	t := updateTargetOf(table, key, version, columns)
	return Statement{SQL: t.sql, Args: values, update: &update{table: table, key: key, version: version, columns: t.cols, values: values,
		sql: t.sql, group: t.group}}
}

// updateTarget is what an Update's table, key, version and columns make:
// its columns (key and version first), single-row SQL and group key.
type updateTarget struct {
	cols       []string
	sql, group string
}

// updateTargets finds an Update's target by its columns slice
// (columnsRef), as targets does Insert's.
var updateTargets refCache[updateTarget]

func updateTargetOf(table, key, version string, columns []string) updateTarget {
	ref, named := refOf(table, key, version, columns)
	if named {
		if t, ok := updateTargets.load(ref, columns); ok {
			return t
		}
	}
	cols := make([]string, 0, len(columns)+2)
	cols = append(append(cols, key, version), columns...)
	sql := statementSQL("update\x00"+table+"\x00"+strings.Join(cols, ","), func() string {
		set := make([]string, 0, len(cols)-1)
		for i, c := range cols[1:] {
			set = append(set, fmt.Sprintf("%s=$%d", c, i+2))
		}
		return "UPDATE " + table + " SET " + strings.Join(set, ", ") + " WHERE " + key + "=$1 AND " + version + " < $2"
	})
	t := updateTarget{cols: cols, sql: sql, group: table + "\x00" + strings.Join(cols, ",")}
	if named {
		updateTargets.store(ref, columns, t)
	}
	return t
}

// updateGroups keeps a batch's Updates per table and columns, one row a key.
type updateGroups struct {
	order  []string
	groups map[string]*updateGroup
}

type updateGroup struct {
	first *update
	keys  []any       // first-seen order
	rows  map[any]int // key -> index into values
	vals  [][]any
}

func (g *updateGroups) add(u *update) error {
	if len(u.values) != len(u.columns) {
		return fmt.Errorf("update %s: %d values for %d columns", u.table, len(u.values), len(u.columns))
	}
	key := u.values[0]
	if key == nil || !reflect.TypeOf(key).Comparable() {
		return fmt.Errorf("update %s: key %v is not a comparable value", u.table, key)
	}
	if g.groups == nil {
		g.groups = map[string]*updateGroup{}
	}
	id := u.group
	grp, ok := g.groups[id]
	if !ok {
		grp = &updateGroup{first: u, rows: map[any]int{}}
		g.groups[id] = grp
		g.order = append(g.order, id)
	}
	i, ok := grp.rows[key]
	if !ok {
		grp.rows[key] = len(grp.vals)
		grp.vals = append(grp.vals, u.values)
		return nil
	}
	if c, err := compareVersions(u.values[1], grp.vals[i][1]); err != nil {
		return fmt.Errorf("update %s: %w", u.table, err)
	} else if c >= 0 {
		grp.vals[i] = u.values
	}
	return nil
}

// compareVersions orders two versions of the same Go integer type.
func compareVersions(a, b any) (int, error) {
	switch x := a.(type) {
	case int:
		if y, ok := b.(int); ok {
			return cmp.Compare(x, y), nil
		}
	case int32:
		if y, ok := b.(int32); ok {
			return cmp.Compare(x, y), nil
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y), nil
		}
	}
	return 0, fmt.Errorf("versions %v (%T) and %v (%T) are not integers of one type", a, a, b, b)
}

// queue adds one multi-row UPDATE per group, its rows typed by the table's
// own columns as Insert's rows are.
func (g *updateGroups) queue(b *pgx.Batch, names *strings.Replacer) error {
	for _, id := range g.order {
		grp := g.groups[id]
		u := grp.first
		if len(grp.vals) == 1 {
			b.Queue(names.Replace(u.sql), grp.vals[0]...)
			continue
		}
		b.Queue(names.Replace(u.mergedSQL()), columnArrays(u.columns, grp.vals)...)
	}
	return nil
}

// mergedSQL is the multi-row UPDATE of u's table and columns: the rows as
// one array a column, typed by the table's columns (unnestArrays).
func (u *update) mergedSQL() string {
	return statementSQL("updates\x00"+u.table+"\x00"+strings.Join(u.columns, ","), func() string {
		set := make([]string, 0, len(u.columns)-1)
		for _, c := range u.columns[1:] {
			set = append(set, c+" = v."+c)
		}
		return `UPDATE ` + u.table + ` AS t SET ` + strings.Join(set, ", ") + ` FROM unnest(` + unnestArrays(u.table, u.columns) + `) AS v(` +
			strings.Join(u.columns, ", ") + `) WHERE t.` + u.key + ` = v.` + u.key + ` AND t.` + u.version + ` < v.` + u.version
	})
}
