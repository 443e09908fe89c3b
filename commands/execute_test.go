package commands_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore/memstore"
)

// The in-memory store serves command handlers as the PostgreSQL one does.
var _ commands.Store = (*memstore.Store)(nil)

// tally is a toy write model: a running total.
type tally struct{ total int }

type addedV1 struct {
	By int `json:"by"`
}

var tallyFold = event.Fold[*tally]{
	"test.tally.added": event.Apply(func(t *tally, p addedV1) { t.total += p.By }),
}

func loadTally(history []event.Recorded) (*tally, error) { return tallyFold.Load(&tally{}, history) }

func add(by int) func(*tally) ([]event.Change, error) {
	return func(*tally) ([]event.Change, error) {
		if by <= 0 {
			return nil, errs.InvalidField("/by", "must be positive")
		}
		return []event.Change{event.New("test.tally.added", addedV1{By: by})}, nil
	}
}

func total(t *tally) int { return t.total }

func TestExecute(t *testing.T) {
	ctx := context.Background()
	store := memstore.New(func() time.Time { return time.Unix(0, 0) })
	m := commands.Meta{OrganizationID: "org", IdempotencyKey: "k1", RequestHash: "h1"}
	tests := []struct {
		name         string
		meta         commands.Meta
		by           int
		want         int
		wantVersion  int64
		wantReplayed bool
		wantKind     errs.Kind
	}{
		{name: "answers from the state the new events leave", meta: m, by: 2, want: 2, wantVersion: 1},
		{name: "the same request replays the first answer", meta: m, by: 5, want: 2, wantVersion: 1, wantReplayed: true},
		{name: "the model's refusal", meta: commands.Meta{OrganizationID: "org"}, by: 0, wantKind: errs.KindInvalidInput},
		{name: "the next command decides on the stream so far", meta: commands.Meta{OrganizationID: "org"}, by: 3, want: 5, wantVersion: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := commands.Execute(ctx, store, tt.meta, "test.tally", "tally-1", loadTally, add(tt.by), total)
			if tt.wantKind != 0 {
				if errs.KindOf(err) != tt.wantKind {
					t.Fatalf("want kind %v, got %v", tt.wantKind, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Value != tt.want || res.Position.Version != tt.wantVersion || res.Replayed != tt.wantReplayed {
				t.Fatalf("got %+v", res)
			}
		})
	}
}

// revealed is an answer with a member JSON leaves out: the decided value
// holds it, the recorded one does not.
type revealed struct {
	Total  int    `json:"total"`
	Secret string `json:"-"`
}

// A first answer is the answer its replays give: an answer type whose
// decoding may differ from the decided value (a member tagged "-") is
// decoded from the record the first time too; a plain one is the decided
// value, equal to its replay.
func TestRunAnswersAsTheRecordReplays(t *testing.T) {
	ctx := context.Background()
	store := memstore.New(func() time.Time { return time.Unix(0, 0) })
	m := commands.Meta{OrganizationID: "org", IdempotencyKey: "k1", RequestHash: "h1"}
	decide := func(history []event.Recorded) ([]event.Change, revealed, error) {
		return []event.Change{event.New("test.tally.added", addedV1{By: 1})}, revealed{Total: len(history) + 1, Secret: "kept"}, nil
	}
	first, err := commands.Run(ctx, store, m, "test.tally", "t1", decide)
	if err != nil {
		t.Fatal(err)
	}
	replay, err := commands.Run(ctx, store, m, "test.tally", "t1", decide)
	if err != nil {
		t.Fatal(err)
	}
	if first.Replayed || !replay.Replayed || first.Value != replay.Value || first.Value != (revealed{Total: 1}) {
		t.Fatalf("first %+v, replay %+v: want both {Total:1} without the member JSON leaves out", first, replay)
	}

	m.IdempotencyKey = "k2"
	fresh, err := commands.Execute(ctx, store, m, "test.tally", "t2", loadTally, add(4), total)
	if err != nil {
		t.Fatal(err)
	}
	again, err := commands.Execute(ctx, store, m, "test.tally", "t2", loadTally, add(9), total)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Replayed || !again.Replayed || fresh.Value != 4 || again.Value != 4 {
		t.Fatalf("fresh %+v, replay %+v: want 4 both", fresh, again)
	}
}

// counted is the tally, Continuable, counting its loads and continuations.
type counted struct {
	tally
	loads, continued *int
}

func (c *counted) Continue(more []event.Recorded) error {
	*c.continued++
	_, err := tallyFold.Load(&c.tally, more)
	return err
}

// A Continuable model answers from itself with the new events folded in,
// exactly as a model loaded again from the whole stream does, and is loaded
// once a decision instead of twice.
func TestContinuedModelAnswersAsReloaded(t *testing.T) {
	ctx := context.Background()
	store := memstore.New(func() time.Time { return time.Unix(0, 0) })
	loads, continued := 0, 0
	loadCounted := func(history []event.Recorded) (*counted, error) {
		loads++
		c := &counted{loads: &loads, continued: &continued}
		_, err := tallyFold.Load(&c.tally, history)
		return c, err
	}
	for i, by := range []int{2, 3, 4} {
		loads, continued = 0, 0
		reloaded, err := commands.Execute(ctx, store, commands.Meta{OrganizationID: "org"}, "tally", "t-plain", loadTally, add(by), total)
		if err != nil {
			t.Fatal(err)
		}
		got, err := commands.Execute(ctx, store, commands.Meta{OrganizationID: "org"}, "tally", "t-continued", loadCounted,
			func(c *counted) ([]event.Change, error) { return add(by)(&c.tally) }, func(c *counted) int { return c.total })
		if err != nil {
			t.Fatal(err)
		}
		if got.Value != reloaded.Value || got.Position.Version != int64(i+1) {
			t.Fatalf("command %d: continued answers %d at %d, reloaded %d", i, got.Value, got.Position.Version, reloaded.Value)
		}
		if loads != 1 || continued != 1 {
			t.Fatalf("command %d: %d loads and %d continuations, want 1 and 1", i, loads, continued)
		}
	}
}

// A first answer carries the encoding Run recorded (Result.Encoded, which
// the HTTP answer writes as it is): exactly Value's encoding. A replay
// carries none: it is decoded from its record.
func TestFirstAnswerCarriesItsEncoding(t *testing.T) {
	ctx := context.Background()
	store := memstore.New(func() time.Time { return time.Unix(0, 0) })
	m := commands.Meta{OrganizationID: "org", IdempotencyKey: "k-encoded", RequestHash: "h"}
	first, err := commands.Execute(ctx, store, m, "tally", "t-encoded", loadTally, add(4), func(t *tally) addedV1 { return addedV1{By: t.total} })
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(first.Value); string(first.Encoded) != string(want) {
		t.Fatalf("encoded %s, want %s", first.Encoded, want)
	}
	again, err := commands.Execute(ctx, store, m, "tally", "t-encoded", loadTally, add(4), func(t *tally) addedV1 { return addedV1{By: t.total} })
	if err != nil || !again.Replayed || again.Encoded != nil || again.Value != first.Value {
		t.Fatalf("replay %+v, %v", again, err)
	}
}
