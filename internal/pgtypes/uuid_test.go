package pgtypes

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/internal/testenv"
)

// TestUUIDEncodesAsItsBytes: a registered map encodes a UUID in binary
// straight from its 16 bytes, with no allocation beyond the buffer, where
// pgx alone takes the driver.Valuer's text detour (an error built with fmt,
// a parse, a second encode).
func TestUUIDEncodesAsItsBytes(t *testing.T) {
	id := uuid.MustParse("0193a3b4-5c6d-7e8f-9012-3456789abcde")
	m := pgtype.NewMap()
	Register(m)
	buf := make([]byte, 0, 64)
	out, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id, buf)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(id[:]) {
		t.Fatalf("encoded %x, want %x", out, id[:])
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id, buf); err != nil {
			t.Fatal(err)
		}
	})
	// The value boxed into an interface on the way in is the one allocation
	// left; the Valuer's detour takes ~10.
	if allocs > 2 {
		t.Fatalf("%.0f allocations to encode a uuid, want at most 2", allocs)
	}
}

// TestUUIDRoundTrips: ids alone, in slices, behind pointers (nil too), into
// uuid and text columns, read back unchanged from PostgreSQL.
func TestUUIDRoundTrips(t *testing.T) {
	ctx := context.Background()
	pc, err := pgxpool.ParseConfig(testenv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	Configure(pc)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	a, b := uuid.New(), uuid.Must(uuid.NewV7())
	var one uuid.UUID
	var text string
	if err := pool.QueryRow(ctx, `SELECT $1::uuid, $2::text`, a, a).Scan(&one, &text); err != nil {
		t.Fatal(err)
	}
	if one != a || text != a.String() {
		t.Fatalf("read %v and %q, want %v", one, text, a)
	}
	var many []string
	if err := pool.QueryRow(ctx, `SELECT array_agg(x::text ORDER BY o) FROM unnest($1::uuid[]) WITH ORDINALITY AS u(x, o)`,
		[]uuid.UUID{a, b}).Scan(&many); err != nil {
		t.Fatal(err)
	}
	if len(many) != 2 || many[0] != a.String() || many[1] != b.String() {
		t.Fatalf("read %v, want [%v %v]", many, a, b)
	}
	var isNull bool
	var missing *uuid.UUID
	if err := pool.QueryRow(ctx, `SELECT $1::uuid IS NULL, $2::uuid`, missing, &b).Scan(&isNull, &one); err != nil {
		t.Fatal(err)
	}
	if !isNull || one != b {
		t.Fatalf("nil pointer null=%v, pointer read %v want %v", isNull, one, b)
	}
}
