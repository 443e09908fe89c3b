package status_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/notifications/contracts"
	statusmap "github.com/platform/backend/notifications/status"
	"github.com/platform/backend/projections"
)

func ev(t *testing.T, typ, stream string, version int64, payload any) eventstore.Event {
	t.Helper()
	raw, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: 1, StreamType: "status.x", StreamID: stream,
		StreamVersion: version, OrganizationID: "org-1", RecordedAt: time.Now(), Payload: raw}
}

// TestStatusMappingValidates: every status event that the seed's table says
// emits a notification maps to a payload that satisfies its contract, under
// a key that matches the contract's pattern and is the same on every replay.
func TestStatusMappingValidates(t *testing.T) {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	host, name, group := "api.example.com", "API", "Core"
	start, end := at.Add(time.Hour), at.Add(2*time.Hour)
	checked := func(code, fails int) domain.ComponentCheckedV1 {
		return domain.ComponentCheckedV1{ComponentID: "api", Host: host, Name: name, Group: &group, HTTPStatus: code, ConsecutiveFails: fails, CheckedAt: at}
	}
	tests := []struct {
		event   eventstore.Event
		typ     string
		key     string
		sevWant string
	}{
		{ev(t, domain.IncidentCreated, "inc1", 1, domain.IncidentCreatedV1{IncidentID: "inc1", Title: "Errors", Message: "Looking",
			Severity: "major", ComponentHost: &host, Status: domain.Investigating, Revision: 1, OccurredAt: at}),
			"status.incident.created", "status:incident:inc1:rev:1", "major"},
		{ev(t, domain.IncidentUpdated, "inc1", 2, domain.IncidentUpdatedV1{IncidentID: "inc1", Title: "Errors", Message: "Found",
			Severity: "critical", Status: domain.Identified, Revision: 2, OccurredAt: at}),
			"status.incident.updated", "status:incident:inc1:rev:2", "critical"},
		{ev(t, domain.IncidentResolved, "inc1", 3, domain.IncidentUpdatedV1{IncidentID: "inc1", Title: "Errors", Message: "Fixed",
			Severity: "critical", Status: domain.Resolved, Revision: 3, OccurredAt: at}),
			"status.incident.resolved", "status:incident:inc1:rev:3", "success"},
		{ev(t, domain.MaintenanceScheduled, "m1", 1, domain.MaintenanceScheduledV1{MaintenanceID: "m1", Title: "DB", Message: "Upgrade",
			ScheduledStart: start, ScheduledEnd: end, Status: domain.Scheduled, Revision: 1, OccurredAt: at}),
			"status.maintenance.scheduled", "status:maintenance:m1:rev:1", "info"},
		{ev(t, domain.MaintenanceStarted, "m1", 2, domain.MaintenanceProgressedV1{MaintenanceID: "m1", Status: domain.InProgress,
			Revision: 2, OccurredAt: at, Title: "DB", ScheduledStart: start, ScheduledEnd: end}),
			"status.maintenance.started", "status:maintenance:m1:rev:2", "warning"},
		{ev(t, domain.MaintenanceCompleted, "m1", 3, domain.MaintenanceProgressedV1{MaintenanceID: "m1", Status: domain.Completed,
			Message: "Done", Revision: 3, OccurredAt: at, Title: "DB", ScheduledStart: start, ScheduledEnd: end}),
			"status.maintenance.completed", "status:maintenance:m1:rev:3", "success"},
		{ev(t, domain.ComponentDegraded, "component:org-1:api", 5, checked(503, 3)),
			"status.component.degraded", "status:component:org-1:api:v5", "critical"},
		{ev(t, domain.ComponentRecovered, "component:org-1:api", 6, checked(200, 0)),
			"status.component.recovered", "status:component:org-1:api:v6", "success"},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			ns, err := statusmap.Mapping.Map(tt.event)
			if err != nil {
				t.Fatal(err)
			}
			if len(ns) != 1 {
				t.Fatalf("want one notification, got %d", len(ns))
			}
			n := ns[0]
			if n.Type != tt.typ || n.IdempotencyKey != tt.key {
				t.Fatalf("got %s %s, want %s %s", n.Type, n.IdempotencyKey, tt.typ, tt.key)
			}
			if n.Payload["severity"] != tt.sevWant {
				t.Fatalf("severity %v, want %s", n.Payload["severity"], tt.sevWant)
			}
			raw, _ := json.Marshal(n.Payload)
			if err := reg.Validate(n.Type, n.IdempotencyKey, raw); err != nil {
				t.Fatalf("contract: %v\npayload: %s", err, raw)
			}
			// The projection's check of the value the mapper built.
			if err := reg.ValidateValue(n.Type, n.IdempotencyKey, n.Payload); err != nil {
				t.Fatalf("contract, checked as a value: %v", err)
			}
			again, _ := statusmap.Mapping.Map(tt.event)
			if again[0].IdempotencyKey != n.IdempotencyKey {
				t.Fatal("the key must be deterministic")
			}
		})
	}
}

// Check outcomes that change no state, and component definitions, notify nobody.
func TestStatusMappingIgnoresNonTransitions(t *testing.T) {
	for _, typ := range []string{domain.ComponentCheckFailed, domain.ComponentCheckSucceeded, domain.ComponentRegistered, domain.ComponentChanged} {
		ns, err := statusmap.Mapping.Map(ev(t, typ, "component:org-1:api", 1, map[string]any{}))
		if err != nil || len(ns) != 0 {
			t.Fatalf("%s: got %v %v, want none", typ, ns, err)
		}
	}
}

// An invalid payload is logged as invalid with the reason, never pending.
func TestProjectionParksInvalidNotifications(t *testing.T) {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	bad := func(eventstore.Event) ([]notifications.Notification, error) {
		return []notifications.Notification{{Type: "status.incident.created", IdempotencyKey: "wrong:key",
			Payload: map[string]any{"title": ""}}}, nil
	}
	p := &notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": bad}}
	stmts, err := p.Reduce(ev(t, domain.IncidentCreated, "inc1", 1, map[string]any{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 1 {
		t.Fatalf("want one delivery-log write, got %d", len(stmts))
	}
	args := stmts[0].Args
	if args[6] != "invalid" || args[7] == "" {
		t.Fatalf("state %v reason %q, want invalid with a reason", args[6], args[7])
	}
}

// The delivery log's envelope carries the contract's descriptor and the
// payload encoded once, inside it; a payload that does not encode is
// recorded invalid, never pending.
func TestProjectionEnvelope(t *testing.T) {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	p := &notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": statusmap.Mapping.Map}}
	e := ev(t, domain.IncidentUpdated, "inc1", 2, domain.IncidentUpdatedV1{IncidentID: "inc1", Title: "Errors", Message: "Fixing",
		Severity: "major", Status: "identified", Revision: 2, OccurredAt: time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)})
	stmts, err := p.Reduce(e)
	if err != nil || len(stmts) != 1 {
		t.Fatalf("Reduce: %d statements, %v", len(stmts), err)
	}
	args := stmts[0].Args
	if args[6] != "pending" || args[7] != "" {
		t.Fatalf("state %v reason %q, want pending", args[6], args[7])
	}
	var env notifications.Envelope
	if err := json.Unmarshal(args[5].(projections.EncodedJSON), &env); err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(env.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Get(domain.IncidentUpdated)
	if env.Type != domain.IncidentUpdated || env.Version != c.Version || env.Version != args[2] || env.IdempotencyKey != "status:incident:inc1:rev:2" ||
		env.OrganizationID != "org-1" || env.SourceEventID != e.ID.String() || !env.EmittedAt.Equal(e.RecordedAt) ||
		env.DataClassification != c.DataClassification || env.Recipients.Mode != c.RecipientsMode || env.SensitiveFields == nil ||
		payload["title"] != "Incident update: Errors" || payload["revision"] != 2.0 || payload["component_host"] != nil {
		t.Fatalf("envelope %+v, payload %v", env, payload)
	}
	if err := reg.Validate(env.Type, env.IdempotencyKey, env.Payload); err != nil {
		t.Fatalf("the envelope's payload fails its contract: %v", err)
	}

	unencodable := func(eventstore.Event) ([]notifications.Notification, error) {
		return []notifications.Notification{{Type: domain.IncidentUpdated, IdempotencyKey: "status:incident:inc1:rev:2",
			Payload: map[string]any{"title": make(chan int)}}}, nil
	}
	p.Mappers["status"] = unencodable
	if stmts, err = p.Reduce(e); err != nil || len(stmts) != 1 {
		t.Fatalf("Reduce: %d statements, %v", len(stmts), err)
	}
	if args := stmts[0].Args; args[6] != "invalid" || args[7] == "" {
		t.Fatalf("unencodable payload: state %v reason %q, want invalid with a reason", args[6], args[7])
	}
}

// BenchmarkProjectionReduce is the notification projection's work for one
// incident update (map, check against the contract, encode the envelope).
func BenchmarkProjectionReduce(b *testing.B) {
	reg, err := contracts.Load()
	if err != nil {
		b.Fatal(err)
	}
	p := &notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": statusmap.Mapping.Map}}
	host := "api.example.com"
	raw, _ := json.Marshal(domain.IncidentUpdatedV1{IncidentID: "inc1", Title: "Errors", Message: "Fixing", Severity: "major",
		Status: "identified", Revision: 2, ComponentHost: &host, OccurredAt: time.Now().UTC()})
	e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: domain.IncidentUpdated, SchemaVersion: 1, StreamType: "status.incident",
		StreamID: "inc1", StreamVersion: 2, OrganizationID: "org-1", RecordedAt: time.Now(), Payload: raw}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Reduce(e); err != nil {
			b.Fatal(err)
		}
	}
}
