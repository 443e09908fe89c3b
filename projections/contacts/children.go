package contacts

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// child is a kind of item a contact has (notes, attachments): its table
// (aliased x), its id column, the columns its scan reads.
type child[T any] struct {
	table, id, columns string
	scan               func(pgx.Row) (T, error)
	idOf               func(T) string
}

// page reads a page of a live contact's items, newest first (ids are
// UUIDv7), after a cursor; 404 for a contact that is not the
// organization's or is deleted.
func (c child[T]) page(ctx context.Context, q *Queries, org, contactID, after string, limit int) ([]T, *string, error) {
	cid, err := q.live(ctx, org, contactID)
	if err != nil {
		return nil, nil, err
	}
	cur, err := decodeCursor(after)
	if err != nil || !cur.plain() {
		return nil, nil, badCursor()
	}
	if limit == 0 {
		limit = 50
	}
	w := &where{args: []any{cid, org}, parts: []string{"x.contact_id=$1", "x.organization_id=$2"}}
	if cur.ID != "" {
		w.add("x."+c.id+" < $%d::uuid", cur.ID)
	}
	w.args = append(w.args, limit+1)
	sql, err := q.sql(ctx, `SELECT `+c.columns+` FROM `+c.table+` x WHERE `+w.sql()+fmt.Sprintf(` ORDER BY x.%s DESC LIMIT $%d`, c.id, len(w.args)))
	if err != nil {
		return nil, nil, err
	}
	rows, err := q.pool.Query(ctx, sql, w.args...)
	if err != nil {
		return nil, nil, err
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return c.scan(r) })
	if err != nil {
		return nil, nil, err
	}
	if items == nil {
		items = []T{}
	}
	if len(items) <= limit {
		return items, nil, nil
	}
	next := cursor{ID: c.idOf(items[limit-1])}.encode()
	return items[:limit], &next, nil
}
