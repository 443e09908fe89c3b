package projections

import (
	"slices"
	"sync"
	"sync/atomic"
)

// columnsRef names a statement's target by the columns slice a reducer
// passes (a package variable, so the same slice every call) instead of by a
// key built from its strings: building and looking up that key was most of
// an Insert's and an Update's Go (bench/README.md, "projgo"). The clauses
// that also shape the statement (table, conflict or key and version) are
// part of it.
type columnsRef struct {
	table, clause, clause2 string
	first                  *string
	n                      int
}

// refCache keeps targets by columnsRef, each checked against the columns it
// was stored with (a slice changed in place is not a hit), up to maxTargets
// entries: a reducer that builds its columns slice anew for each event gets
// no hits and is served by the key-built path.
type refCache[T any] struct {
	m sync.Map // columnsRef -> refHit[T]
	n atomic.Int32
}

type refHit[T any] struct {
	target  T
	columns []string
}

const maxTargets = 1024

// refOf is the columnsRef of a call; ok is false for no columns (no slice to
// name).
func refOf(table, clause, clause2 string, columns []string) (columnsRef, bool) {
	if len(columns) == 0 {
		return columnsRef{}, false
	}
	return columnsRef{table: table, clause: clause, clause2: clause2, first: &columns[0], n: len(columns)}, true
}

func (c *refCache[T]) load(ref columnsRef, columns []string) (T, bool) {
	if hit, ok := c.m.Load(ref); ok && slices.Equal(hit.(refHit[T]).columns, columns) {
		return hit.(refHit[T]).target, true
	}
	var zero T
	return zero, false
}

func (c *refCache[T]) store(ref columnsRef, columns []string, t T) {
	if c.n.Load() < maxTargets {
		c.n.Add(1)
		c.m.Store(ref, refHit[T]{target: t, columns: slices.Clone(columns)})
	}
}
