package status_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
	status "github.com/platform/backend/projections/status"
)

// Every status event type is handled, and every statement writes only the
// projection's own versioned tables (so a rebuild's generation is complete).
func TestReducersUseOwnTables(t *testing.T) {
	p := status.Projection{}
	at := time.Now()
	payloads := map[string]any{
		domain.IncidentCreated:         domain.IncidentCreatedV1{IncidentID: "i", Title: "t", Message: "m", Severity: "minor", Status: "investigating", Revision: 1, OccurredAt: at},
		domain.IncidentUpdated:         domain.IncidentUpdatedV1{IncidentID: "i", Title: "t", Message: "m", Severity: "minor", Status: "identified", Revision: 2, OccurredAt: at},
		domain.IncidentResolved:        domain.IncidentUpdatedV1{IncidentID: "i", Title: "t", Message: "m", Severity: "minor", Status: "resolved", Revision: 3, OccurredAt: at},
		domain.MaintenanceScheduled:    domain.MaintenanceScheduledV1{MaintenanceID: "m", Title: "t", Status: "scheduled", Revision: 1, OccurredAt: at},
		domain.MaintenanceRescheduled:  domain.MaintenanceRescheduledV1{MaintenanceID: "m", Status: "scheduled", Revision: 1, OccurredAt: at},
		domain.MaintenanceStarted:      domain.MaintenanceProgressedV1{MaintenanceID: "m", Status: "in_progress", Revision: 2, OccurredAt: at},
		domain.MaintenanceCompleted:    domain.MaintenanceProgressedV1{MaintenanceID: "m", Status: "completed", Revision: 3, OccurredAt: at},
		domain.ComponentRegistered:     domain.ComponentDefinedV1{ComponentID: "c", Host: "h", Name: "n", CheckURL: "http://h"},
		domain.ComponentChanged:        domain.ComponentDefinedV1{ComponentID: "c", Host: "h", Name: "n2", CheckURL: "http://h"},
		domain.ComponentCheckFailed:    domain.ComponentCheckedV1{ComponentID: "c", HTTPStatus: 500, ConsecutiveFails: 1, CheckedAt: at},
		domain.ComponentCheckSucceeded: domain.ComponentCheckedV1{ComponentID: "c", HTTPStatus: 200, CheckedAt: at},
		domain.ComponentDegraded:       domain.ComponentCheckedV1{ComponentID: "c", HTTPStatus: 500, ConsecutiveFails: 3, CheckedAt: at},
		domain.ComponentRecovered:      domain.ComponentCheckedV1{ComponentID: "c", HTTPStatus: 200, CheckedAt: at},
	}
	for typ, payload := range payloads {
		raw, _ := json.Marshal(payload)
		stmts, err := p.Reduce(eventstore.Event{ID: uuid.New(), Type: typ, SchemaVersion: 1, StreamID: "s", StreamVersion: 1, OrganizationID: "o", Payload: raw})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if len(stmts) == 0 {
			t.Fatalf("%s: not handled", typ)
		}
		for _, s := range stmts {
			names := projections.Placeholders(s.SQL)
			if len(names) == 0 {
				t.Fatalf("%s: statement names no versioned table: %s", typ, s.SQL)
			}
			for _, n := range names {
				if !slices.Contains(p.Tables(), n) {
					t.Fatalf("%s: statement writes %q, not a table of the projection", typ, n)
				}
			}
		}
	}
	if stmts, _ := p.Reduce(eventstore.Event{Type: "identity.user.created", Payload: json.RawMessage(`{}`)}); stmts != nil {
		t.Fatal("events of other contexts must be ignored")
	}
	bad := eventstore.Event{Type: domain.IncidentCreated, Payload: json.RawMessage(`[1]`)}
	if _, err := p.Reduce(bad); err == nil {
		t.Fatal("an unreadable payload must fail (and be parked by the runner)")
	}
}
