// Package pgtypes teaches pgx the Go types the platform passes to
// PostgreSQL that pgx does not know natively.
package pgtypes

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Configure registers the platform's types on every connection the pool
// opens, after any AfterConnect the config already has.
func Configure(pc *pgxpool.Config) {
	prev := pc.AfterConnect
	pc.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		Register(conn.TypeMap())
		if prev != nil {
			return prev(ctx, conn)
		}
		return nil
	}
}

// Register makes m encode a google/uuid UUID (alone, in a slice or behind a
// pointer) as the 16 bytes it is. Without it pgx takes the UUID's
// driver.Valuer: it formats the id as text, fails to encode that text in
// binary (building an error with fmt), parses it back and encodes the
// result: ~20 µs of an HTTP command's Go went there (the append's
// event ids, 2026-11-27 profile of BenchmarkDiagCommandPath).
func Register(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapUUID}, m.TryWrapEncodePlanFuncs...)
}

func tryWrapUUID(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	id, ok := value.(uuid.UUID)
	if !ok {
		return nil, nil, false
	}
	return &uuidPlan{}, pgtype.UUID{Bytes: id, Valid: true}, true
}

// uuidPlan hands the id to the plan of pgtype.UUID (the uuid codec's own).
type uuidPlan struct{ next pgtype.EncodePlan }

func (p *uuidPlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *uuidPlan) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(pgtype.UUID{Bytes: value.(uuid.UUID), Valid: true}, buf)
}
