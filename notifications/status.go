package notifications

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
)

// StatusMapper maps status events to the 8 status contracts of seed 002.
// Keys are deterministic: <object>:<id>:rev:<n> for revisioned objects, and
// the stream version for components, so a replayed event maps to the same key.
func StatusMapper(e eventstore.Event) ([]Notification, error) {
	switch e.Type {
	case domain.IncidentCreated:
		var p domain.IncidentCreatedV1
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			return nil, err
		}
		return one(e.Type, incidentKey(p.IncidentID, p.Revision), map[string]any{
			"title": "Incident: " + p.Title, "body": p.Message, "object_id": p.IncidentID, "occurred_at": ts(p.OccurredAt),
			"category": "status", "severity": p.Severity, "object_type": "status_incident",
			"incident_id": p.IncidentID, "incident_status": p.Status, "revision": p.Revision,
			"component_host": p.ComponentHost, "component_name": p.ComponentName,
		}), nil
	case domain.IncidentUpdated, domain.IncidentResolved:
		var p domain.IncidentUpdatedV1
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			return nil, err
		}
		severity, title := p.Severity, "Incident update: "+p.Title
		if e.Type == domain.IncidentResolved {
			severity, title = "success", "Incident resolved: "+p.Title
		}
		return one(e.Type, incidentKey(p.IncidentID, p.Revision), map[string]any{
			"title": title, "body": p.Message, "object_id": p.IncidentID, "occurred_at": ts(p.OccurredAt),
			"category": "status", "severity": severity, "object_type": "status_incident",
			"incident_id": p.IncidentID, "incident_status": p.Status, "revision": p.Revision,
			"component_host": p.ComponentHost, "component_name": p.ComponentName,
		}), nil
	case domain.MaintenanceScheduled:
		var p domain.MaintenanceScheduledV1
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			return nil, err
		}
		return one(e.Type, maintenanceKey(p.MaintenanceID, p.Revision), maintenancePayload("info", "Maintenance scheduled: "+p.Title,
			p.Message, p.MaintenanceID, p.Status, p.Revision, p.OccurredAt, p.ScheduledStart, p.ScheduledEnd)), nil
	case domain.MaintenanceRescheduled:
		// Seed 002 has no contract for a moved window (and its scheduled
		// contract is revision 1 only): nothing is emitted. Decisions.
		return nil, nil
	case domain.MaintenanceStarted, domain.MaintenanceCompleted:
		var p domain.MaintenanceProgressedV1
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			return nil, err
		}
		severity, title := "warning", "Maintenance started: "+p.Title
		if e.Type == domain.MaintenanceCompleted {
			severity, title = "success", "Maintenance completed: "+p.Title
		}
		body := p.Message
		if body == "" {
			body = title
		}
		return one(e.Type, maintenanceKey(p.MaintenanceID, p.Revision), maintenancePayload(severity, title,
			body, p.MaintenanceID, p.Status, p.Revision, p.OccurredAt, p.ScheduledStart, p.ScheduledEnd)), nil
	case domain.ComponentDegraded, domain.ComponentRecovered:
		var p domain.ComponentCheckedV1
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			return nil, err
		}
		severity, title, body := "critical", p.Name+" degraded", fmt.Sprintf("%s failed %d consecutive checks.", p.Host, p.ConsecutiveFails)
		if e.Type == domain.ComponentRecovered {
			severity, title, body = "success", p.Name+" recovered", fmt.Sprintf("%s answers again (HTTP %d).", p.Host, p.HTTPStatus)
		}
		key := fmt.Sprintf("status:component:%s:v%d", strings.TrimPrefix(e.StreamID, "component:"), e.StreamVersion)
		return one(e.Type, key, map[string]any{
			"title": title, "body": body, "object_id": p.ComponentID, "occurred_at": ts(p.CheckedAt),
			"category": "status", "severity": severity, "object_type": "status_component",
			"component_host": p.Host, "component_name": p.Name, "component_group": p.Group,
			"http_status": p.HTTPStatus, "consecutive_fails": p.ConsecutiveFails,
		}), nil
	}
	return nil, nil
}

func maintenancePayload(severity, title, body, id, status string, revision int, at, start, end time.Time) map[string]any {
	return map[string]any{
		"title": title, "body": body, "object_id": id, "occurred_at": ts(at),
		"category": "status", "severity": severity, "object_type": "status_maintenance",
		"maintenance_id": id, "maintenance_status": status, "revision": revision,
		"scheduled_start": ts(start), "scheduled_end": ts(end),
	}
}

func incidentKey(id string, revision int) string {
	return fmt.Sprintf("status:incident:%s:rev:%d", id, revision)
}

func maintenanceKey(id string, revision int) string {
	return fmt.Sprintf("status:maintenance:%s:rev:%d", id, revision)
}

func one(typ, key string, payload map[string]any) []Notification {
	return []Notification{{Type: typ, IdempotencyKey: key, Payload: payload}}
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
