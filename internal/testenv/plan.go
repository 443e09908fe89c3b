package testenv

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// RowsRead runs EXPLAIN ANALYZE of sql with args and returns how many rows
// its scans of table went through: those they returned and those their
// filters removed, over every loop. A test of a query that must stay an
// index lookup, whatever plan the server picks, asserts on it.
func RowsRead(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, table, sql string, args ...any) (float64, string, error) {
	var raw []byte
	if err := q.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+sql, args...).Scan(&raw); err != nil {
		return 0, "", err
	}
	var plan []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
		return 0, string(raw), fmt.Errorf("plan: %v", err)
	}
	return plan[0].Plan.rowsOf(table), string(raw), nil
}

// planNode is a node of EXPLAIN's JSON plan.
type planNode struct {
	Relation    string     `json:"Relation Name"`
	ActualRows  float64    `json:"Actual Rows"`
	ActualLoops float64    `json:"Actual Loops"`
	Removed     float64    `json:"Rows Removed by Filter"`
	JoinRemoved float64    `json:"Rows Removed by Join Filter"`
	Plans       []planNode `json:"Plans"`
}

func (n planNode) rowsOf(table string) float64 {
	total := 0.0
	if n.Relation == table {
		total += (n.ActualRows + n.Removed) * max(n.ActualLoops, 1)
	}
	for _, c := range n.Plans {
		total += c.rowsOf(table)
		if n.Relation == "" && c.Relation == table {
			total += n.JoinRemoved * max(n.ActualLoops, 1) // rows of table a join above it threw away
		}
	}
	return total
}
