package projections_test

import (
	"slices"
	"testing"

	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

func TestReducersIgnoring(t *testing.T) {
	handled := projections.On(func(eventstore.Event, struct{}) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec("SELECT 1")}, nil
	})
	table := projections.Reducers{"a.x.done": handled}
	got := table.Ignoring("a.x.done", "a.y.done", "a.z.done")
	if want := []string{"a.x.done", "a.y.done", "a.z.done"}; !slices.Equal(got.Types(), want) {
		t.Fatalf("types %v, want %v", got.Types(), want)
	}
	if len(table) != 1 {
		t.Fatal("Ignoring leaves the table it extends as it was")
	}
	tests := []struct {
		typ  string
		want int
	}{
		{"a.x.done", 1}, // a handled type stays handled
		{"a.y.done", 0},
		{"a.unknown.done", 0},
	}
	for _, tt := range tests {
		writes, err := got.Reduce(eventstore.Event{Type: tt.typ, Payload: []byte(`{}`)})
		if err != nil || len(writes) != tt.want {
			t.Errorf("%s: %d writes, %v; want %d", tt.typ, len(writes), err, tt.want)
		}
	}
}

// TestJobReducersCoverEveryJobEvent: one function reads every job event of
// a context, with the job after the event.
func TestJobReducersCoverEveryJobEvent(t *testing.T) {
	var got []string
	table := projections.JobReducers("studio", func(e eventstore.Event, j domjobs.Job) ([]projections.Statement, error) {
		got = append(got, j.ID+":"+j.State)
		return nil, nil
	})
	want := domjobs.EventTypes("studio")
	slices.Sort(want)
	if !slices.Equal(table.Types(), want) {
		t.Fatalf("types %v", table.Types())
	}
	if _, err := table.Reduce(eventstore.Event{Type: "studio.job.claimed", Payload: []byte(`{"job":{"id":"r1","state":"running"}}`)}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"r1:running"}) {
		t.Fatalf("%v", got)
	}
}
