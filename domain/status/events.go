// Package status is the status service's domain: incidents, maintenance
// windows and monitored components, with the transitions of seed 002.
package status

import "time"

// Stream types.
const (
	StreamIncident    = "status.incident"
	StreamMaintenance = "status.maintenance"
	StreamComponent   = "status.component"
)

// Event types: dotted, past tense, stable strings (never Go type names).
// All are at schema version 1.
const (
	IncidentCreated  = "status.incident.created"
	IncidentUpdated  = "status.incident.updated"
	IncidentResolved = "status.incident.resolved"

	MaintenanceScheduled   = "status.maintenance.scheduled"
	MaintenanceRescheduled = "status.maintenance.rescheduled"
	MaintenanceStarted     = "status.maintenance.started"
	MaintenanceCompleted   = "status.maintenance.completed"

	ComponentRegistered     = "status.component.registered"
	ComponentChanged        = "status.component.changed"
	ComponentCheckFailed    = "status.component.check_failed"
	ComponentCheckSucceeded = "status.component.check_succeeded"
	ComponentDegraded       = "status.component.degraded"
	ComponentRecovered      = "status.component.recovered"
)

// EventTypes are every event type of the status context (the invariant
// tests check each projection and mapper against them).
var EventTypes = []string{
	IncidentCreated,
	IncidentUpdated,
	IncidentResolved,
	MaintenanceScheduled,
	MaintenanceRescheduled,
	MaintenanceStarted,
	MaintenanceCompleted,
	ComponentRegistered,
	ComponentChanged,
	ComponentCheckFailed,
	ComponentCheckSucceeded,
	ComponentDegraded,
	ComponentRecovered,
}

// Incident statuses.
const (
	Investigating = "investigating"
	Identified    = "identified"
	Monitoring    = "monitoring"
	Resolved      = "resolved"
)

// Maintenance statuses.
const (
	Scheduled  = "scheduled"
	InProgress = "in_progress"
	Completed  = "completed"
)

// Component statuses.
const (
	Operational = "operational"
	Degraded    = "degraded"
)

// Severities of an incident.
var Severities = []string{"minor", "major", "critical"}

// DegradedAfter is the number of consecutive failed checks that degrade a component.
const DegradedAfter = 3

type IncidentCreatedV1 struct {
	IncidentID    string    `json:"incident_id"`
	Title         string    `json:"title"`
	Message       string    `json:"message"`
	Severity      string    `json:"severity"`
	ComponentHost *string   `json:"component_host"`
	ComponentName *string   `json:"component_name"`
	Status        string    `json:"incident_status"`
	Revision      int       `json:"revision"`
	OccurredAt    time.Time `json:"occurred_at"`
}

// IncidentUpdatedV1 is also the payload of IncidentResolved (status resolved).
type IncidentUpdatedV1 struct {
	IncidentID string    `json:"incident_id"`
	Status     string    `json:"incident_status"`
	Message    string    `json:"message"`
	Severity   string    `json:"severity"`
	Title      string    `json:"title"`
	Revision   int       `json:"revision"`
	OccurredAt time.Time `json:"occurred_at"`
	// Carried from creation so every revision names its component.
	ComponentHost *string `json:"component_host"`
	ComponentName *string `json:"component_name"`
}

type MaintenanceScheduledV1 struct {
	MaintenanceID  string    `json:"maintenance_id"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	ScheduledStart time.Time `json:"scheduled_start"`
	ScheduledEnd   time.Time `json:"scheduled_end"`
	Status         string    `json:"maintenance_status"`
	Revision       int       `json:"revision"`
	OccurredAt     time.Time `json:"occurred_at"`
	// AutoStart and AutoComplete: the window starts (completes) by itself
	// at its scheduled start (end). Absent in events before they existed.
	AutoStart    bool `json:"auto_start,omitempty"`
	AutoComplete bool `json:"auto_complete,omitempty"`
}

// MaintenanceRescheduledV1 is a window's new schedule (times and
// automation), whole. Status and revision are the window's, unchanged: a
// reschedule is not a transition (seed 002 revisions count transitions).
type MaintenanceRescheduledV1 struct {
	MaintenanceID  string    `json:"maintenance_id"`
	Title          string    `json:"title"`
	ScheduledStart time.Time `json:"scheduled_start"`
	ScheduledEnd   time.Time `json:"scheduled_end"`
	AutoStart      bool      `json:"auto_start"`
	AutoComplete   bool      `json:"auto_complete"`
	Status         string    `json:"maintenance_status"`
	Revision       int       `json:"revision"`
	OccurredAt     time.Time `json:"occurred_at"`
}

// MaintenanceProgressedV1 is the payload of MaintenanceStarted and MaintenanceCompleted.
type MaintenanceProgressedV1 struct {
	MaintenanceID string    `json:"maintenance_id"`
	Status        string    `json:"maintenance_status"`
	Message       string    `json:"message"`
	Revision      int       `json:"revision"`
	OccurredAt    time.Time `json:"occurred_at"`
	// Carried from scheduling so every revision describes its window.
	Title          string    `json:"title"`
	ScheduledStart time.Time `json:"scheduled_start"`
	ScheduledEnd   time.Time `json:"scheduled_end"`
}

// ComponentDefinedV1 is the payload of ComponentRegistered and ComponentChanged.
type ComponentDefinedV1 struct {
	ComponentID string  `json:"component_id"`
	Host        string  `json:"component_host"`
	Name        string  `json:"component_name"`
	Group       *string `json:"component_group"`
	CheckURL    string  `json:"check_url"`
	// AutoIncident: an incident opens when the component degrades and is
	// resolved when it recovers (the status.auto_incident reactor).
	AutoIncident bool `json:"auto_incident,omitempty"`
}

// ComponentCheckedV1 is the payload of every check outcome event.
type ComponentCheckedV1 struct {
	ComponentID      string    `json:"component_id"`
	Host             string    `json:"component_host"`
	Name             string    `json:"component_name"`
	Group            *string   `json:"component_group"`
	HTTPStatus       int       `json:"http_status"`
	ConsecutiveFails int       `json:"consecutive_fails"`
	Error            string    `json:"error,omitempty"`
	CheckedAt        time.Time `json:"checked_at"`
	// AutoIncident is the component's setting when it was checked, so the
	// reactor decides from the event alone.
	AutoIncident bool `json:"auto_incident,omitempty"`
}

// SnapshotSchema is the format of the status write models' snapshots: each
// model's State. Bump it whenever a State changes shape; older snapshots are
// then ignored and streams fold from their first event.
const SnapshotSchema = 1
