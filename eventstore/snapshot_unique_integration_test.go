package eventstore_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

func storeOnly(t *testing.T) (*eventstore.Store, *pgxpool.Pool) {
	pool, kc := apptest.Infra(t, "store", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate},
		func(eventstore.KafkaConfig) []string { return nil })
	return eventstore.NewStore(pool, kc.Topics), pool
}

// counter is a tiny write model: its state is the number of events.
type counter struct {
	N int `json:"n"`
}

func foldCounter(history []eventstore.Event) (any, error) {
	var c counter
	for _, e := range history {
		if e.Type == event.SnapshotType {
			var err error
			if c, err = eventstore.Decode[counter](e); err != nil {
				return nil, err
			}
			continue
		}
		c.N++
	}
	return c, nil
}

// With snapshots a command sees one snapshot and the events after it, and
// the state it folds equals the state of the whole stream; a model whose
// snapshot schema changed folds the whole stream again.
func TestSnapshotsLoadStateFromOneRow(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream := "snap-" + uuid.NewString()
	snap := &eventstore.Snapshotting{Schema: 1}
	var seen []int
	for i := 0; i < 10; i++ {
		_, err := store.Execute(ctx, eventstore.Command{StreamType: "status.incident", StreamID: stream, OrganizationID: "org-s",
			Actor: eventstore.Actor{ID: "t", Type: "system"}, Snapshot: snap},
			func(history []eventstore.Event) (eventstore.Decision, error) {
				seen = append(seen, len(history))
				if len(history) > 0 && history[0].Type != event.SnapshotType {
					t.Errorf("command %d: history starts with %s, want the snapshot", i, history[0].Type)
				}
				state, _ := foldCounter(history)
				c := state.(counter)
				if c.N != i {
					t.Errorf("command %d: folded %d events, want %d", i, c.N, i)
				}
				return eventstore.Decision{Events: []eventstore.NewEvent{event.New("status.incident.updated", map[string]int{"i": i})},
					Snapshot: counter{N: c.N + 1}}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range seen[1:] {
		if n != 1 {
			t.Fatalf("command %d loaded %d rows, want 1 (the snapshot)", i+1, n)
		}
	}
	var version, snapVersion int64
	var raw string
	if err := pool.QueryRow(ctx, `SELECT version, snapshot_version, snapshot::text FROM es_streams WHERE stream_id=$1`, stream).
		Scan(&version, &snapVersion, &raw); err != nil {
		t.Fatal(err)
	}
	if version != 10 || snapVersion != 10 || raw != `{"n": 10}` {
		t.Fatalf("head %d, snapshot %d %s; want 10, 10 {\"n\": 10}", version, snapVersion, raw)
	}
	history, err := store.LoadLatest(ctx, stream, 2) // another schema: the whole stream
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 10 || history[9].StreamVersion != 10 {
		t.Fatalf("schema 2 loaded %d events, want the 10 events", len(history))
	}
	// A command without snapshotting continues the same stream at the right version.
	out, err := store.Execute(ctx, eventstore.Command{StreamType: "status.incident", StreamID: stream, OrganizationID: "org-s",
		Actor: eventstore.Actor{ID: "t", Type: "system"}},
		func([]eventstore.Event) (eventstore.Decision, error) {
			return eventstore.Decision{Events: []eventstore.NewEvent{event.New("status.incident.updated", map[string]int{"i": 10})}}, nil
		})
	if err != nil || out.Position.Version != 11 {
		t.Fatalf("plain append after snapshots: %+v %v, want version 11", out.Position, err)
	}
}

func claim(ctx context.Context, store *eventstore.Store, stream string, u event.Unique) error {
	_, err := store.Execute(ctx, eventstore.Command{StreamType: "identity.organization", StreamID: stream, OrganizationID: stream,
		Actor: eventstore.Actor{ID: "t", Type: "system"}},
		func([]eventstore.Event) (eventstore.Decision, error) {
			c := event.New("identity.organization.renamed", map[string]string{"slug": u.Value})
			c.Unique = []event.Unique{u}
			return eventstore.Decision{Events: []eventstore.NewEvent{c}}, nil
		})
	return err
}

// Of many streams claiming one value at once exactly one wins; the others
// fail with "<kind>_taken" and append nothing. The owner may claim again;
// after a release another stream may take it.
func TestUniqueClaims(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	slug := "acme-" + uuid.NewString()[:8]
	const n = 8
	streams := make([]string, n)
	results := make([]error, n)
	var wg sync.WaitGroup
	for i := range streams {
		streams[i] = "org-" + strconv.Itoa(i) + "-" + uuid.NewString()
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = claim(ctx, store, streams[i], event.Unique{Kind: "slug", Value: slug})
		}(i)
	}
	wg.Wait()
	winner := -1
	for i, err := range results {
		if err == nil {
			if winner >= 0 {
				t.Fatalf("streams %d and %d both hold the slug", winner, i)
			}
			winner = i
			continue
		}
		if e, ok := errs.As(err); !ok || e.Kind != errs.KindConflict || e.Code != "slug_taken" {
			t.Fatalf("stream %d: %v, want conflict slug_taken", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no stream holds the slug")
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE payload->>'slug'=$1`, slug); got != 1 {
		t.Fatalf("%d events carry the slug, want 1 (losers append nothing)", got)
	}
	if taken, err := store.Taken(ctx, "slug", slug); err != nil || !taken {
		t.Fatalf("Taken = %v, %v; want true", taken, err)
	}
	if err := claim(ctx, store, streams[winner], event.Unique{Kind: "slug", Value: slug}); err != nil {
		t.Fatalf("owner re-claims: %v", err)
	}
	if err := claim(ctx, store, streams[winner], event.Unique{Kind: "slug", Value: slug, Release: true}); err != nil {
		t.Fatal(err)
	}
	other := streams[(winner+1)%n]
	if err := claim(ctx, store, other, event.Unique{Kind: "slug", Value: slug}); err != nil {
		t.Fatalf("claim after release: %v", err)
	}
}
