package reactor_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// A batch's checkpoint is one round trip (its statements in the batch's
// implicit transaction, no BEGIN or COMMIT of their own), and still one
// transaction: while the server refuses the checkpoint, the parked event's
// failure row, written before it in the same batch, is not there either;
// once the checkpoint goes through, both are.
func TestReactorCheckpointIsOneRoundTripAndAtomic(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for _, sql := range []string{`CREATE TABLE refuse_checkpoints (on_ boolean NOT NULL)`,
		`INSERT INTO refuse_checkpoints VALUES (true)`,
		`CREATE SEQUENCE refused_checkpoints`, // counts refusals: a sequence is not rolled back
		`CREATE FUNCTION refuse_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				IF (SELECT on_ FROM refuse_checkpoints) THEN
					PERFORM nextval('refused_checkpoints');
					RAISE EXCEPTION 'checkpoint refused by the test';
				END IF;
				RETURN NEW;
			END $$`,
		`CREATE TRIGGER checkpoint_refused BEFORE INSERT OR UPDATE ON reactor_checkpoints FOR EACH ROW EXECUTE FUNCTION refuse_checkpoint()`,
	} {
		if _, err := r.pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	sent := &statements{}
	cfg := r.pool.Config()
	cfg.ConnConfig.Tracer = sent
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)

	poison := tick("clock-cp", 2)
	re := &echo{store: r.store, seen: map[uuid.UUID]int{}, fail: func(e eventstore.Event, _ int) error {
		if e.ID == poison.ID {
			return errors.New("cannot react to this one")
		}
		return nil
	}}
	part, end := r.publish(tick("clock-cp", 1), poison, tick("clock-cp", 3))
	stop := r.runOn(pool, re)
	defer stop()
	apptest.Eventually(t, 60*time.Second, "the checkpoint to be refused twice", func() bool {
		var n int64
		_ = r.pool.QueryRow(ctx, `SELECT last_value FROM refused_checkpoints WHERE is_called`).Scan(&n)
		return n >= 2
	})
	if n := r.failures(); n != 0 {
		t.Fatalf("%d failure rows while their checkpoint is refused, want 0 (one transaction)", n)
	}
	if _, err := r.pool.Exec(ctx, `UPDATE refuse_checkpoints SET on_ = false`); err != nil {
		t.Fatal(err)
	}
	r.waitCheckpoint(part, end)
	stop()
	if n := r.failures(); n != 1 || r.effects() != 2 {
		t.Fatalf("%d failure rows, %d effects; want 1, 2", n, r.effects())
	}
	if begins, checkpoints := sent.counts(); begins != 0 || checkpoints < 3 {
		t.Fatalf("the runner's pool saw %d BEGINs and %d checkpoint statements; want none, and at least 3 (2 refused, 1 written)",
			begins, checkpoints)
	}
}

func (r *rig) failures() int {
	r.t.Helper()
	var n int
	if err := r.pool.QueryRow(context.Background(), `SELECT count(*) FROM reactor_failures WHERE reactor='rtest.echo'`).Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// statements counts what a pool sends: BEGINs (alone or queued), and the
// statements that write a reactor checkpoint.
type statements struct {
	mu                 sync.Mutex
	begins, checkpoint int
}

func (s *statements) see(sql string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch q := strings.ToLower(strings.TrimSpace(sql)); {
	case strings.HasPrefix(q, "begin"):
		s.begins++
	case strings.Contains(q, "into reactor_checkpoints"):
		s.checkpoint++
	}
}

func (s *statements) counts() (begins, checkpoints int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.begins, s.checkpoint
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.see(d.SQL)
	return ctx
}

func (*statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (s *statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.see(d.SQL)
}

func (*statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
