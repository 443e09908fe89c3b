// Package status maps the status service's events to seed 002's status
// notification contracts.
package status

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications"
)

// Mapping maps status events to the 8 status contracts of seed 002. Keys
// are deterministic: <object>:<id>:rev:<n> for revisioned objects, and the
// stream version for components, so a replayed event maps to the same key.
var Mapping = notifications.Mapping{
	domain.IncidentCreated: notifications.MapAs(func(e eventstore.Event, p domain.IncidentCreatedV1) ([]notifications.Notification, error) {
		return notifications.One(e.Type, incidentKey(p.IncidentID, p.Revision), map[string]any{
			"title": "Incident: " + p.Title, "body": p.Message, "object_id": p.IncidentID, "occurred_at": notifications.Timestamp(p.OccurredAt),
			"category": "status", "severity": p.Severity, "object_type": "status_incident",
			"incident_id": p.IncidentID, "incident_status": p.Status, "revision": p.Revision,
			"component_host": p.ComponentHost, "component_name": p.ComponentName,
		}), nil
	}),
	domain.IncidentUpdated:  notifications.MapAs(incidentRevised),
	domain.IncidentResolved: notifications.MapAs(incidentRevised),
	domain.MaintenanceScheduled: notifications.MapAs(func(e eventstore.Event, p domain.MaintenanceScheduledV1) ([]notifications.Notification, error) {
		return notifications.One(e.Type, maintenanceKey(p.MaintenanceID, p.Revision), maintenancePayload("info", "Maintenance scheduled: "+p.Title,
			p.Message, p.MaintenanceID, p.Status, p.Revision, p.OccurredAt, p.ScheduledStart, p.ScheduledEnd)), nil
	}),
	// Seed 002 has no contract for a moved window (and its scheduled
	// contract is revision 1 only): nothing is emitted. Decisions.
	domain.MaintenanceRescheduled: notifications.Silent,
	domain.MaintenanceStarted:     notifications.MapAs(maintenanceProgressed),
	domain.MaintenanceCompleted:   notifications.MapAs(maintenanceProgressed),
	domain.ComponentDegraded:      notifications.MapAs(componentHealth),
	domain.ComponentRecovered:     notifications.MapAs(componentHealth),
	// Definitions and single checks are not contract events: only the
	// transitions (degraded, recovered) are.
	domain.ComponentRegistered:     notifications.Silent,
	domain.ComponentChanged:        notifications.Silent,
	domain.ComponentCheckFailed:    notifications.Silent,
	domain.ComponentCheckSucceeded: notifications.Silent,
}

func incidentRevised(e eventstore.Event, p domain.IncidentUpdatedV1) ([]notifications.Notification, error) {
	severity, title := p.Severity, "Incident update: "+p.Title
	if e.Type == domain.IncidentResolved {
		severity, title = "success", "Incident resolved: "+p.Title
	}
	return notifications.One(e.Type, incidentKey(p.IncidentID, p.Revision), map[string]any{
		"title": title, "body": p.Message, "object_id": p.IncidentID, "occurred_at": notifications.Timestamp(p.OccurredAt),
		"category": "status", "severity": severity, "object_type": "status_incident",
		"incident_id": p.IncidentID, "incident_status": p.Status, "revision": p.Revision,
		"component_host": p.ComponentHost, "component_name": p.ComponentName,
	}), nil
}

func maintenanceProgressed(e eventstore.Event, p domain.MaintenanceProgressedV1) ([]notifications.Notification, error) {
	severity, title := "warning", "Maintenance started: "+p.Title
	if e.Type == domain.MaintenanceCompleted {
		severity, title = "success", "Maintenance completed: "+p.Title
	}
	body := p.Message
	if body == "" {
		body = title
	}
	return notifications.One(e.Type, maintenanceKey(p.MaintenanceID, p.Revision), maintenancePayload(severity, title,
		body, p.MaintenanceID, p.Status, p.Revision, p.OccurredAt, p.ScheduledStart, p.ScheduledEnd)), nil
}

func componentHealth(e eventstore.Event, p domain.ComponentCheckedV1) ([]notifications.Notification, error) {
	severity, title, body := "critical", p.Name+" degraded", fmt.Sprintf("%s failed %d consecutive checks.", p.Host, p.ConsecutiveFails)
	if e.Type == domain.ComponentRecovered {
		severity, title, body = "success", p.Name+" recovered", fmt.Sprintf("%s answers again (HTTP %d).", p.Host, p.HTTPStatus)
	}
	key := fmt.Sprintf("status:component:%s:v%d", strings.TrimPrefix(e.StreamID, "component:"), e.StreamVersion)
	return notifications.One(e.Type, key, map[string]any{
		"title": title, "body": body, "object_id": p.ComponentID, "occurred_at": notifications.Timestamp(p.CheckedAt),
		"category": "status", "severity": severity, "object_type": "status_component",
		"component_host": p.Host, "component_name": p.Name, "component_group": p.Group,
		"http_status": p.HTTPStatus, "consecutive_fails": p.ConsecutiveFails,
	}), nil
}

func maintenancePayload(severity, title, body, id, status string, revision int, at, start, end time.Time) map[string]any {
	return map[string]any{
		"title": title, "body": body, "object_id": id, "occurred_at": notifications.Timestamp(at),
		"category": "status", "severity": severity, "object_type": "status_maintenance",
		"maintenance_id": id, "maintenance_status": status, "revision": revision,
		"scheduled_start": notifications.Timestamp(start), "scheduled_end": notifications.Timestamp(end),
	}
}

// The keys are concatenated, not formatted: one per incident update.
func incidentKey(id string, revision int) string {
	return "status:incident:" + id + ":rev:" + strconv.Itoa(revision)
}

func maintenanceKey(id string, revision int) string {
	return "status:maintenance:" + id + ":rev:" + strconv.Itoa(revision)
}
