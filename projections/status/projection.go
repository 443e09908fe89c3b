// Package status is the status service's read model: incidents with their
// update timeline, maintenance windows and components.
package status

import (
	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection (consumer group, registry rows).
const Name = "status"

// Projection builds the status read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"status"} }
func (Projection) Tables() []string {
	return []string{"status_incidents", "status_incident_updates", "status_maintenances", "status_components"}
}

func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{status_incidents}} (
			organization_id text NOT NULL, incident_id text PRIMARY KEY, title text NOT NULL, message text NOT NULL,
			severity text NOT NULL, status text NOT NULL, revision int NOT NULL,
			component_host text, component_name text, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)
			WITH (fillfactor = 70)`, // updated per event: room for HOT updates
		`CREATE INDEX IF NOT EXISTS {{status_incidents}}_org ON {{status_incidents}} (organization_id, created_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{status_incident_updates}} (
			incident_id text NOT NULL, revision int NOT NULL, status text NOT NULL, message text NOT NULL,
			severity text NOT NULL, occurred_at timestamptz NOT NULL, PRIMARY KEY (incident_id, revision))`,
		`CREATE TABLE IF NOT EXISTS {{status_maintenances}} (
			organization_id text NOT NULL, maintenance_id text PRIMARY KEY, title text NOT NULL, message text NOT NULL,
			status text NOT NULL, revision int NOT NULL, scheduled_start timestamptz NOT NULL, scheduled_end timestamptz NOT NULL,
			updated_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{status_maintenances}}_org ON {{status_maintenances}} (organization_id, scheduled_start)`,
		`CREATE TABLE IF NOT EXISTS {{status_components}} (
			organization_id text NOT NULL, component_id text NOT NULL, component_host text NOT NULL, component_name text NOT NULL,
			component_group text, check_url text NOT NULL, status text NOT NULL, consecutive_fails int NOT NULL,
			last_http_status int, last_checked_at timestamptz, PRIMARY KEY (organization_id, component_id))`,
	}
}

func (p Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each status event does to the read model.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = projections.Reducers{
	domain.IncidentCreated: projections.On(func(e eventstore.Event, p domain.IncidentCreatedV1) ([]projections.Statement, error) {
		return []projections.Statement{
			projections.Exec(`INSERT INTO {{status_incidents}} (organization_id, incident_id, title, message, severity, status, revision,
				component_host, component_name, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$10)
				ON CONFLICT (incident_id) DO NOTHING`,
				e.OrganizationID, p.IncidentID, p.Title, p.Message, p.Severity, p.Status, p.Revision, p.ComponentHost, p.ComponentName, p.OccurredAt),
			incidentUpdate(p.IncidentID, p.Revision, p.Status, p.Message, p.Severity, p.OccurredAt),
		}, nil
	}),
	domain.IncidentUpdated:  projections.On(incidentRevised),
	domain.IncidentResolved: projections.On(incidentRevised),
	domain.MaintenanceScheduled: projections.On(func(e eventstore.Event, p domain.MaintenanceScheduledV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`INSERT INTO {{status_maintenances}} (organization_id, maintenance_id, title, message,
			status, revision, scheduled_start, scheduled_end, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)
			ON CONFLICT (maintenance_id) DO NOTHING`,
			e.OrganizationID, p.MaintenanceID, p.Title, p.Message, p.Status, p.Revision, p.ScheduledStart, p.ScheduledEnd, p.OccurredAt)}, nil
	}),
	// Times only: status, revision and message are not a reschedule's.
	domain.MaintenanceRescheduled: projections.On(func(_ eventstore.Event, p domain.MaintenanceRescheduledV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{status_maintenances}} SET scheduled_start=$2, scheduled_end=$3, updated_at=$4
			WHERE maintenance_id=$1`, p.MaintenanceID, p.ScheduledStart, p.ScheduledEnd, p.OccurredAt)}, nil
	}),
	domain.MaintenanceStarted:      projections.On(maintenanceProgressed),
	domain.MaintenanceCompleted:    projections.On(maintenanceProgressed),
	domain.ComponentRegistered:     projections.On(componentDefined),
	domain.ComponentChanged:        projections.On(componentDefined),
	domain.ComponentCheckFailed:    componentChecked("status"), // unchanged
	domain.ComponentCheckSucceeded: componentChecked("status"),
	domain.ComponentDegraded:       componentChecked("'" + domain.Degraded + "'"),
	domain.ComponentRecovered:      componentChecked("'" + domain.Operational + "'"),
}

func incidentRevised(_ eventstore.Event, p domain.IncidentUpdatedV1) ([]projections.Statement, error) {
	return []projections.Statement{
		projections.Update("{{status_incidents}}", "incident_id", "revision", revisedColumns,
			p.IncidentID, p.Revision, p.Title, p.Message, p.Severity, p.Status, p.OccurredAt),
		incidentUpdate(p.IncidentID, p.Revision, p.Status, p.Message, p.Severity, p.OccurredAt),
	}, nil
}

func maintenanceProgressed(_ eventstore.Event, p domain.MaintenanceProgressedV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`UPDATE {{status_maintenances}} SET status=$2, revision=$3, message=$4, updated_at=$5
		WHERE maintenance_id=$1 AND revision < $3`, p.MaintenanceID, p.Status, p.Revision, p.Message, p.OccurredAt)}, nil
}

func componentDefined(e eventstore.Event, p domain.ComponentDefinedV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`INSERT INTO {{status_components}} (organization_id, component_id, component_host,
		component_name, component_group, check_url, status, consecutive_fails) VALUES ($1,$2,$3,$4,$5,$6,'operational',0)
		ON CONFLICT (organization_id, component_id) DO UPDATE SET component_host=EXCLUDED.component_host,
		component_name=EXCLUDED.component_name, component_group=EXCLUDED.component_group, check_url=EXCLUDED.check_url`,
		e.OrganizationID, p.ComponentID, p.Host, p.Name, p.Group, p.CheckURL)}, nil
}

// componentChecked records a check outcome; status is the SQL the
// component's status becomes (the column itself: unchanged).
func componentChecked(status string) projections.Reducer {
	return projections.On(func(e eventstore.Event, p domain.ComponentCheckedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{status_components}} SET status=`+status+`,
			consecutive_fails=$3, last_http_status=$4, last_checked_at=$5 WHERE organization_id=$1 AND component_id=$2`,
			e.OrganizationID, p.ComponentID, p.ConsecutiveFails, p.HTTPStatus, p.CheckedAt)}, nil
	})
}

// incidentUpdate is one timeline row, keyed by the incident's revision: the
// timeline is append-only, so the runner COPYs a batch's rows.
func incidentUpdate(id string, revision int, status, message, severity string, at any) projections.Statement {
	return projections.Append("{{status_incident_updates}}", timelineColumns, id, revision, status, message, severity, at)
}

// revisedColumns are what an update or a resolution sets.
var revisedColumns = []string{"title", "message", "severity", "status", "updated_at"}

var timelineColumns = []string{"incident_id", "revision", "status", "message", "severity", "occurred_at"}
