// Package projections holds the read side: the runner that applies the log to
// PostgreSQL read models, the generations that let a read model be rebuilt
// while the old one serves, and (in sub-packages) the read models themselves.
package projections

import (
	"fmt"
	"strings"

	"github.com/platform/backend/eventstore"
)

// Statement is one write a reducer asks for. Table names are written as
// {{base_name}} and resolved to the generation being built.
type Statement struct {
	SQL  string
	Args []any
}

// Exec builds a Statement.
func Exec(sql string, args ...any) Statement { return Statement{SQL: sql, Args: args} }

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
