package status_test

import (
	"reflect"
	"syscall"
	"testing"
	"time"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/notifications/contracts"
	statusmap "github.com/platform/backend/notifications/status"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
	statusview "github.com/platform/backend/projections/status"
)

// liveGroup is the status topic's live projections as platformd groups
// them (status read model, history, notifications), in that order.
func liveGroup(t testing.TB) []projections.Projection {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	return []projections.Projection{statusview.Projection{}, history.Projection{Sources: []string{"status"}},
		&notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": statusmap.Mapping.Map}}}
}

// TestSharedPayloadReducesAsBefore is a differential test of the live
// group's payloads decoded once (eventstore.Event.SharingDecodes): for an
// event of every status type, each projection of the group writes the
// same statements (rows, delivery-log envelopes, states) from the shared
// event, read by the projections one after the other as the runner does,
// as from an event of its own, decoded for it alone.
func TestSharedPayloadReducesAsBefore(t *testing.T) {
	ps := liveGroup(t)
	at := time.Date(2026, 5, 2, 10, 0, 0, 123456789, time.UTC)
	host, name, group := "api.example.com", "API", "Core"
	checked := func(code, fails int) domain.ComponentCheckedV1 {
		return domain.ComponentCheckedV1{ComponentID: "api", Host: host, Name: name, Group: &group, HTTPStatus: code, ConsecutiveFails: fails,
			Error: "timeout", CheckedAt: at}
	}
	events := []eventstore.Event{
		ev(t, domain.IncidentCreated, "inc1", 1, domain.IncidentCreatedV1{IncidentID: "inc1", Title: "Errors", Message: "Looking",
			Severity: "major", ComponentHost: &host, ComponentName: &name, Status: domain.Investigating, Revision: 1, OccurredAt: at}),
		ev(t, domain.IncidentUpdated, "inc1", 2, domain.IncidentUpdatedV1{IncidentID: "inc1", Title: "Errors", Message: "Found <it> & \u2028",
			Severity: "critical", ComponentHost: &host, Status: domain.Identified, Revision: 2, OccurredAt: at}),
		ev(t, domain.IncidentResolved, "inc1", 3, domain.IncidentUpdatedV1{IncidentID: "inc1", Title: "Errors", Message: "Fixed",
			Severity: "critical", Status: domain.Resolved, Revision: 3, OccurredAt: at}),
		ev(t, domain.MaintenanceScheduled, "m1", 1, domain.MaintenanceScheduledV1{MaintenanceID: "m1", Title: "DB", Message: "Upgrade",
			ScheduledStart: at.Add(time.Hour), ScheduledEnd: at.Add(2 * time.Hour), Status: domain.Scheduled, Revision: 1, OccurredAt: at}),
		ev(t, domain.MaintenanceRescheduled, "m1", 2, domain.MaintenanceRescheduledV1{MaintenanceID: "m1", Title: "DB",
			ScheduledStart: at.Add(3 * time.Hour), ScheduledEnd: at.Add(4 * time.Hour), Status: domain.Scheduled, Revision: 1, OccurredAt: at}),
		ev(t, domain.MaintenanceStarted, "m1", 3, domain.MaintenanceProgressedV1{MaintenanceID: "m1", Status: domain.InProgress,
			Revision: 2, OccurredAt: at, Title: "DB", ScheduledStart: at, ScheduledEnd: at.Add(time.Hour)}),
		ev(t, domain.MaintenanceCompleted, "m1", 4, domain.MaintenanceProgressedV1{MaintenanceID: "m1", Status: domain.Completed,
			Message: "Done", Revision: 3, OccurredAt: at, Title: "DB", ScheduledStart: at, ScheduledEnd: at.Add(time.Hour)}),
		ev(t, domain.ComponentRegistered, "component:org-1:api", 1, domain.ComponentDefinedV1{ComponentID: "api", Host: host, Name: name,
			Group: &group, CheckURL: "https://api.example.com/health"}),
		ev(t, domain.ComponentCheckFailed, "component:org-1:api", 2, checked(503, 1)),
		ev(t, domain.ComponentDegraded, "component:org-1:api", 3, checked(503, 3)),
		ev(t, domain.ComponentRecovered, "component:org-1:api", 4, checked(200, 0)),
	}
	for _, e := range events {
		shared := e.SharingDecodes()
		wrote := 0
		for _, p := range ps {
			want, wantErr := p.Reduce(e)
			got, err := p.Reduce(shared)
			if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s by %s: shared payload gives %+v (%v), alone %+v (%v)", e.Type, p.Name(), got, err, want, wantErr)
			}
			wrote += len(got)
		}
		if wrote == 0 {
			t.Fatalf("%s: no statement from any projection: the comparison proves nothing", e.Type)
		}
	}
}

// BenchmarkLiveGroupReduce is the live group's reducers' Go for one
// incident update: each projection reading an event of its own
// (shared=false, before projgo) or the group's shared event.
func BenchmarkLiveGroupReduce(b *testing.B) {
	ps := liveGroup(b)
	host := "api.example.com"
	t := &testing.T{}
	e := ev(t, domain.IncidentUpdated, "inc1", 2, domain.IncidentUpdatedV1{IncidentID: "inc1", Title: "Errors", Message: "Fixing",
		Severity: "major", Status: "identified", Revision: 2, ComponentHost: &host, OccurredAt: time.Now().UTC()})
	for _, shared := range []bool{false, true} {
		b.Run(map[bool]string{false: "shared=false", true: "shared=true"}[shared], func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				ev := e
				if shared {
					ev = e.SharingDecodes()
				}
				for _, p := range ps {
					if _, err := p.Reduce(ev); err != nil {
						b.Fatal(err)
					}
				}
			}
			// The process's CPU, not the wall: steadier on a loaded machine.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
