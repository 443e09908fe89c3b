// Package projections holds the read side: the runner that applies the log to
// PostgreSQL read models, the generations that let a read model be rebuilt
// while the old one serves, and (in sub-packages) the read models themselves.
package projections

import (
	"fmt"
	"strings"
	"sync"

	"github.com/platform/backend/eventstore"
)

// Statement is one write a reducer asks for. Table names are written as
// {{base_name}} and resolved to the generation being built.
type Statement struct {
	SQL  string
	Args []any
	row  *row // set by Insert: a row the runner may merge with others
	// counter is set by Add: a sum the runner may merge with others.
	counter *counter
	// update is set by Update: a row's new values the runner may merge
	// with others.
	update *update
	// indexed: the statement finds its rows through the projection's
	// deferred indexes (NeedsIndexes).
	indexed bool
}

// NeedsIndexes marks a statement that finds its rows through the
// projection's deferred indexes (DeferredIndexes: an UPDATE by a secondary
// key): in a generation being rebuilt, the runner builds them in the
// transaction of the first batch that holds such a statement, so the
// statement never scans the table it is filling.
func (s Statement) NeedsIndexes() Statement {
	s.indexed = true
	return s
}

// Exec builds a Statement.
func Exec(sql string, args ...any) Statement { return Statement{SQL: sql, Args: args} }

// Insert is one row for an append-style table: the runner merges the rows a
// batch inserts into the same table with the same columns and conflict
// clause into one multi-row INSERT, written after the batch's other
// statements (measured: one statement per row was most of a replay's
// cost). So use it only for tables the projection writes with Insert alone,
// with a conflict clause of DO NOTHING. Values are sent as one binary
// array a column, typed by the table's columns, and stored as their JSON
// would be (arrayValue): pass json.RawMessage or EncodedJSON for jsonb
// columns. SQL and Args hold the same row as a single-row INSERT.
func Insert(table string, columns []string, conflict string, values ...any) Statement {
	target := insertTarget(table, columns, conflict)
	return Statement{SQL: target.sql, Args: values, row: &row{table: table, columns: columns, conflict: conflict, target: target.key, values: values}}
}

// target is an Insert's table, columns and conflict clause: its single-row
// SQL, and the key its rows are grouped by.
type target struct{ key, sql string }

// targets finds an Insert's target by its columns slice (columnsRef).
var targets refCache[target]

func insertTarget(table string, columns []string, conflict string) target {
	ref, named := refOf(table, conflict, "", columns)
	if named {
		if t, ok := targets.load(ref, columns); ok {
			return t
		}
	}
	key := table + "\x00" + strings.Join(columns, ",") + "\x00" + conflict
	t := target{key: key, sql: statementSQL(key, func() string {
		params := make([]string, len(columns))
		for i := range columns {
			params[i] = fmt.Sprintf("$%d", i+1)
		}
		return strings.TrimSuffix("INSERT INTO "+table+" ("+strings.Join(columns, ", ")+") VALUES ("+strings.Join(params, ",")+") "+conflict, " ")
	})}
	if named {
		targets.store(ref, columns, t)
	}
	return t
}

// statements caches the single-row SQL of Insert, Append and Add by their
// table, columns and clauses: a reducer builds one per event.
var statements sync.Map

func statementSQL(key string, build func() string) string {
	if sql, ok := statements.Load(key); ok {
		return sql.(string)
	}
	sql := build()
	statements.Store(key, sql)
	return sql
}

// Append is one row of an append-only table to which every event writes
// its own rows, once (an audit record keyed by the event id, a timeline
// entry keyed by the stream's position): the runner COPYs a batch's rows
// of the same table and columns (in one multi-row INSERT when they are
// few). There is no conflict clause: the runner applies each event once
// per generation (stream versions, one-event streams' event ids), so a row
// that is there already fails the batch, which is tried again on what the
// database holds then. Written apart from the batch's other statements:
// use it only for tables the projection writes with Append alone. Values
// are encoded by the column types in PostgreSQL's binary format (pass
// json.RawMessage for jsonb; a uuid.UUID is written as its 16 bytes on
// the platform's pools: pgtypes). SQL and Args hold the same row as a
// single-row INSERT.
func Append(table string, columns []string, values ...any) Statement {
	st := Insert(table, columns, "", values...)
	st.row.appended = true
	return st
}

// Projection is declarative: it names its tables and turns events into
// statements. The runner owns consuming, batching, transactions, checkpoints,
// redelivery and failures.
type Projection interface {
	// Name is stable; it names the consumer group and the registry rows.
	Name() string
	// Contexts are the bounded contexts whose topics it reads.
	Contexts() []string
	// Schema creates the projection's versioned tables (with {{base}} names).
	Schema() []string
	// Tables are the base names of the versioned tables, for dropping.
	Tables() []string
	// Reduce returns the writes for one event; nil for events it ignores.
	// An error parks the event.
	Reduce(e eventstore.Event) ([]Statement, error)
}

// A StreamSkipper is a Projection that reads nothing from some stream
// types: the runner passes over their records (by the record's stream-type
// header, without decoding it; a record without the header is decoded
// first) as if they were not on its topics: nothing applied, no stream
// version tracked. Only for stream types none of whose events the
// projection applies (its reducers ignore every one): the notifications
// projection and the gateway's one-call usage streams. Read-your-writes
// positions of those streams are never reached by such a projection.
type StreamSkipper interface {
	SkipsStreams() []string
}

// A OneEventStreams projection applies events of stream types whose
// streams hold one event each (a provider call's usage) without a stream
// version row: one row a call in proj_stream_versions, for ever, would be
// most of what the projection writes for it. Every event of such a type that
// the projection applies writes a row keyed by its event id into a table
// the projection names (column event_id, unique): the runner drops an event
// whose row is there already or earlier in its batch (a relay's re-send),
// and reports one that is not the event the event store holds at its
// position (an impostor), in the batch's first round trip. An event of
// such a type at a version other than 1 is parked: the declaration is
// wrong. Read-your-writes positions of those streams are never reached by
// the projection (no command answers with one).
type OneEventStreams interface {
	// OneEventStreams maps each such stream type to that table ({{base}}).
	OneEventStreams() map[string]string
}

// A DeferredIndexes projection declares secondary indexes apart from its
// Schema, for bulk loading: a generation being rebuilt fills its tables
// without them and builds each once, in the transaction that makes the
// generation active (or earlier, for a batch with a statement that
// NeedsIndexes), instead of updating every index for every row as it
// lands. The active generation has them from the start (the live path
// keeps its indexes), and so the queries, which read only the active
// generation, always find them. Only for indexes the queries and the
// runner's reads do not need while a rebuild fills the tables (never a
// primary key or a unique constraint: those keep each event once).
type DeferredIndexes interface {
	// DeferredIndexes are CREATE INDEX IF NOT EXISTS statements ({{base}} names).
	DeferredIndexes() []string
}

// TableName is the physical name of a base table in a generation.
func TableName(base string, generation int) string { return fmt.Sprintf("%s_g%d", base, generation) }

// Resolver rewrites {{base}} placeholders for one generation.
func Resolver(p Projection, generation int) *strings.Replacer {
	var pairs []string
	for _, t := range p.Tables() {
		pairs = append(pairs, "{{"+t+"}}", TableName(t, generation))
	}
	return strings.NewReplacer(pairs...)
}
