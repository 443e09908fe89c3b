package status_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	statuscmd "github.com/platform/backend/commands/status"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/eventstore/memstore"
)

// Unit tests of status handlers on the in-memory event store. Polls and
// the component cap read the pool: their tests are integration tests.

var (
	ctx = context.Background()
	t0  = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
)

func handlers() (*statuscmd.Handlers, *memstore.Store) {
	store := memstore.New(func() time.Time { return t0 })
	return statuscmd.NewHandlers(store, func() time.Time { return t0 }), store
}

func meta(org string) commands.Meta {
	return commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "u1", Type: "user"}}
}

func keyed(org, key, hash string) commands.Meta {
	m := meta(org)
	m.IdempotencyKey, m.RequestHash = key, hash
	return m
}

func newIncident() statuscmd.CreateIncident {
	return statuscmd.CreateIncident{Title: "API errors", Message: "Investigating.", Severity: "major"}
}

func TestIncidentRevisions(t *testing.T) {
	h, _ := handlers()
	created, err := h.CreateIncident(ctx, meta("org"), newIncident())
	if err != nil {
		t.Fatal(err)
	}
	id := created.Value.IncidentID
	if created.Value.Revision != 1 || created.Value.Status != domain.Investigating || created.Position != (eventstore.Position{StreamID: id, Version: 1}) {
		t.Fatalf("created %+v", created)
	}
	steps := []struct {
		name         string
		meta         commands.Meta
		in           statuscmd.UpdateIncident
		wantRevision int
		wantStatus   string
		wantReplayed bool
		wantCode     string
	}{
		{name: "an update is revision 2", meta: keyed("org", "k1", "h1"), in: statuscmd.UpdateIncident{IncidentID: id, Status: domain.Identified, Message: "Found it."},
			wantRevision: 2, wantStatus: domain.Identified},
		{name: "the same request replays revision 2", meta: keyed("org", "k1", "h1"), in: statuscmd.UpdateIncident{IncidentID: id, Status: domain.Monitoring, Message: "x"},
			wantRevision: 2, wantStatus: domain.Identified, wantReplayed: true},
		{name: "the key with another request is refused", meta: keyed("org", "k1", "h2"), in: statuscmd.UpdateIncident{IncidentID: id, Message: "x"},
			wantCode: "idempotency_key_reused"},
		{name: "another tenant's incident is missing", meta: meta("other"), in: statuscmd.UpdateIncident{IncidentID: id, Message: "x"},
			wantCode: "not_found"},
		{name: "resolving is the next revision", meta: meta("org"), in: statuscmd.UpdateIncident{IncidentID: id, Status: domain.Resolved, Message: "Fixed."},
			wantRevision: 3, wantStatus: domain.Resolved},
		{name: "a resolved incident takes no update", meta: meta("org"), in: statuscmd.UpdateIncident{IncidentID: id, Message: "again"},
			wantCode: "incident_resolved"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res, err := h.UpdateIncident(ctx, s.meta, s.in)
			if errs.CodeOf(err) != s.wantCode {
				t.Fatalf("want %q, got %v", s.wantCode, err)
			}
			if err != nil {
				return
			}
			if res.Value.Revision != s.wantRevision || res.Value.Status != s.wantStatus || res.Replayed != s.wantReplayed ||
				res.Position.Version != int64(s.wantRevision) {
				t.Fatalf("got %+v", res)
			}
		})
	}
}

// TestParallelIncidentUpdates: parallel updates of one incident give
// revisions 2..21, each once (DESIGN §2, guarantee 3).
func TestParallelIncidentUpdates(t *testing.T) {
	h, _ := handlers()
	created, err := h.CreateIncident(ctx, meta("org"), newIncident())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var revisions []int
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			res, err := h.UpdateIncident(ctx, meta("org"), statuscmd.UpdateIncident{IncidentID: created.Value.IncidentID, Message: "progress"})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			revisions = append(revisions, res.Value.Revision)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(revisions)
	for i, r := range revisions {
		if r != i+2 {
			t.Fatalf("revisions %v: want 2..21, each once", revisions)
		}
	}
}

func TestMaintenanceTransitionsAndTimers(t *testing.T) {
	h, store := handlers()
	start, end := t0.Add(time.Hour), t0.Add(3*time.Hour)
	scheduled, err := h.ScheduleMaintenance(ctx, meta("org"), statuscmd.ScheduleMaintenance{Title: "DB upgrade", Message: "Planned.",
		ScheduledStart: start, ScheduledEnd: end, AutoStart: true, AutoComplete: true})
	if err != nil {
		t.Fatal(err)
	}
	id := scheduled.Value.MaintenanceID
	timers := store.Timers(id)
	if tm := timers[domain.TimerStart]; tm.State != memstore.TimerPending || !tm.At.Equal(start) || tm.Kind != domain.TimerKindMaintenanceStart {
		t.Fatalf("start timer %+v", tm)
	}
	if tm := timers[domain.TimerComplete]; tm.State != memstore.TimerPending || !tm.At.Equal(end) {
		t.Fatalf("complete timer %+v", tm)
	}

	// Moving the start moves its timer: the old schedule no longer fires.
	later := start.Add(30 * time.Minute)
	moved, err := h.UpdateMaintenance(ctx, meta("org"), statuscmd.UpdateMaintenance{MaintenanceID: id, ScheduledStart: &later})
	if err != nil || moved.Value.Status != domain.Scheduled || moved.Value.Revision != 1 || !moved.Value.ScheduledStart.Equal(later) {
		t.Fatalf("rescheduled %+v, %v", moved, err)
	}
	startTimer := store.Timers(id)[domain.TimerStart]
	if _, err := h.AutoAdvanceMaintenance(ctx, meta("org"), id, domain.InProgress, start,
		commands.FiresTimer(timers[domain.TimerStart].Ref())); !errors.Is(err, eventstore.ErrTimerStale) {
		t.Fatalf("the old start schedule: %v", err)
	}

	// The timer starts the window at its time, once.
	started, err := h.AutoAdvanceMaintenance(ctx, meta("org"), id, domain.InProgress, later, commands.FiresTimer(startTimer.Ref()))
	if err != nil || started.Value.Status != domain.InProgress || started.Value.Revision != 2 || started.Value.Message != domain.AutoStartMessage {
		t.Fatalf("auto-started %+v, %v", started, err)
	}
	if tm := store.Timers(id)[domain.TimerStart]; tm.State != memstore.TimerFired {
		t.Fatalf("start timer after firing %+v", tm)
	}

	// Completing by hand cancels the complete timer; a second completion is refused.
	completed, err := h.UpdateMaintenance(ctx, meta("org"), statuscmd.UpdateMaintenance{MaintenanceID: id, Status: domain.Completed, Message: "Done."})
	if err != nil || completed.Value.Status != domain.Completed || completed.Value.Revision != 3 {
		t.Fatalf("completed %+v, %v", completed, err)
	}
	if tm := store.Timers(id)[domain.TimerComplete]; tm.State != memstore.TimerCancelled {
		t.Fatalf("complete timer after a manual completion %+v", tm)
	}
	_, err = h.UpdateMaintenance(ctx, meta("org"), statuscmd.UpdateMaintenance{MaintenanceID: id, Status: domain.Completed})
	if errs.CodeOf(err) != "invalid_transition" {
		t.Fatalf("completing twice: %v", err)
	}
	history, _ := store.Load(ctx, id)
	var types []string
	for _, e := range history {
		types = append(types, e.Type)
	}
	want := []string{domain.MaintenanceScheduled, domain.MaintenanceRescheduled, domain.MaintenanceStarted, domain.MaintenanceCompleted}
	if !slices.Equal(types, want) {
		t.Fatalf("stream %v, want %v", types, want)
	}
	if snap, _ := store.LoadLatest(ctx, id, domain.SnapshotSchema); len(snap) != 1 || snap[0].StreamVersion != 4 {
		t.Fatalf("each command saves the window's snapshot: %+v", snap)
	}
}

// BenchmarkUpdateIncident is one incident update's decision path on the
// in-memory store: load from the snapshot, decide, encode the event, the
// answer and the snapshot, decode the answer (the store's own work aside;
// it scans a stream's history, so each incident takes 16 updates).
func BenchmarkUpdateIncident(b *testing.B) {
	h, _ := handlers()
	statuses := []string{domain.Identified, domain.Monitoring}
	b.ReportAllocs()
	id := ""
	i := 0
	for b.Loop() {
		if i%16 == 0 {
			b.StopTimer()
			created, err := h.CreateIncident(ctx, meta("org"), newIncident())
			if err != nil {
				b.Fatal(err)
			}
			id = created.Value.IncidentID
			b.StartTimer()
		}
		i++
		in := statuscmd.UpdateIncident{IncidentID: id, Status: statuses[i%2], Message: "Still on it."}
		if _, err := h.UpdateIncident(ctx, meta("org"), in); err != nil {
			b.Fatal(err)
		}
	}
}
