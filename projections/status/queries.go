package status

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/projections"
)

// Queries reads the active generation of the status read model.
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader) *Queries {
	return &Queries{pool: pool, reader: reader}
}

// Incident is the command answer's shape plus the update timeline.
type Incident struct {
	domain.IncidentState
	Updates []IncidentUpdate `json:"updates,omitempty"`
}

type IncidentUpdate struct {
	Revision   int       `json:"revision"`
	Status     string    `json:"status"`
	Message    string    `json:"message"`
	Severity   string    `json:"severity"`
	OccurredAt time.Time `json:"occurred_at"`
}

// Maintenance has the command answer's shape.
type Maintenance = domain.MaintenanceState

type Component struct {
	ComponentID      string     `json:"component_id"`
	ComponentHost    string     `json:"component_host"`
	ComponentName    string     `json:"component_name"`
	ComponentGroup   *string    `json:"component_group"`
	CheckURL         string     `json:"check_url"`
	Status           string     `json:"status"`
	ConsecutiveFails int        `json:"consecutive_fails"`
	LastHTTPStatus   *int       `json:"last_http_status"`
	LastCheckedAt    *time.Time `json:"last_checked_at"`
}

func (q *Queries) sql(ctx context.Context, s string) (string, error) {
	return q.reader.SQL(ctx, Projection{}, s)
}

// IncidentFilter selects incidents: status "open", "resolved" or "" (all).
type IncidentFilter struct {
	Status string
	Limit  int
}

func (q *Queries) Incidents(ctx context.Context, org string, f IncidentFilter) ([]Incident, error) {
	if f.Limit == 0 {
		f.Limit = 50
	}
	where := ""
	switch f.Status {
	case "open":
		where = " AND status <> 'resolved'"
	case "resolved":
		where = " AND status = 'resolved'"
	}
	sql, err := q.sql(ctx, `SELECT incident_id, title, message, severity, status, revision, component_host, component_name, created_at, updated_at
		FROM {{status_incidents}} WHERE organization_id=$1`+where+` ORDER BY created_at DESC LIMIT $2`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, f.Limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Incident, error) {
		var i Incident
		err := r.Scan(&i.IncidentID, &i.Title, &i.Message, &i.Severity, &i.Status, &i.Revision, &i.ComponentHost, &i.ComponentName, &i.CreatedAt, &i.UpdatedAt)
		return i, err
	})
}

// Incident returns one incident with its timeline.
func (q *Queries) Incident(ctx context.Context, org, id string) (Incident, error) {
	sql, err := q.sql(ctx, `SELECT incident_id, title, message, severity, status, revision, component_host, component_name, created_at, updated_at
		FROM {{status_incidents}} WHERE organization_id=$1 AND incident_id=$2`)
	if err != nil {
		return Incident{}, err
	}
	var i Incident
	err = q.pool.QueryRow(ctx, sql, org, id).Scan(&i.IncidentID, &i.Title, &i.Message, &i.Severity, &i.Status, &i.Revision,
		&i.ComponentHost, &i.ComponentName, &i.CreatedAt, &i.UpdatedAt)
	if err == pgx.ErrNoRows {
		return Incident{}, errs.NotFound("incident")
	}
	if err != nil {
		return Incident{}, err
	}
	sql, err = q.sql(ctx, `SELECT revision, status, message, severity, occurred_at FROM {{status_incident_updates}} WHERE incident_id=$1 ORDER BY revision`)
	if err != nil {
		return Incident{}, err
	}
	rows, err := q.pool.Query(ctx, sql, id)
	if err != nil {
		return Incident{}, err
	}
	i.Updates, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (IncidentUpdate, error) {
		var u IncidentUpdate
		err := r.Scan(&u.Revision, &u.Status, &u.Message, &u.Severity, &u.OccurredAt)
		return u, err
	})
	return i, err
}

// Maintenances lists windows that are not completed, or all with all=true.
func (q *Queries) Maintenances(ctx context.Context, org string, all bool) ([]Maintenance, error) {
	where := " AND status <> 'completed'"
	if all {
		where = ""
	}
	sql, err := q.sql(ctx, `SELECT maintenance_id, title, message, status, revision, scheduled_start, scheduled_end, updated_at
		FROM {{status_maintenances}} WHERE organization_id=$1`+where+` ORDER BY scheduled_start LIMIT 200`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Maintenance, error) {
		var m Maintenance
		err := r.Scan(&m.MaintenanceID, &m.Title, &m.Message, &m.Status, &m.Revision, &m.ScheduledStart, &m.ScheduledEnd, &m.UpdatedAt)
		return m, err
	})
}

func (q *Queries) Components(ctx context.Context, org string) ([]Component, error) {
	sql, err := q.sql(ctx, `SELECT component_id, component_host, component_name, component_group, check_url, status, consecutive_fails,
		last_http_status, last_checked_at FROM {{status_components}} WHERE organization_id=$1 ORDER BY component_group NULLS FIRST, component_name`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanComponent)
}

// AllComponents lists every organization's components, for the poller.
func (q *Queries) AllComponents(ctx context.Context) (map[string][]Component, error) {
	sql, err := q.sql(ctx, `SELECT organization_id, component_id, component_host, component_name, component_group, check_url, status,
		consecutive_fails, last_http_status, last_checked_at FROM {{status_components}} ORDER BY organization_id, component_id`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]Component{}
	for rows.Next() {
		var org string
		var c Component
		if err := rows.Scan(&org, &c.ComponentID, &c.ComponentHost, &c.ComponentName, &c.ComponentGroup, &c.CheckURL, &c.Status,
			&c.ConsecutiveFails, &c.LastHTTPStatus, &c.LastCheckedAt); err != nil {
			return nil, err
		}
		out[org] = append(out[org], c)
	}
	return out, rows.Err()
}

func scanComponent(r pgx.CollectableRow) (Component, error) {
	var c Component
	err := r.Scan(&c.ComponentID, &c.ComponentHost, &c.ComponentName, &c.ComponentGroup, &c.CheckURL, &c.Status, &c.ConsecutiveFails,
		&c.LastHTTPStatus, &c.LastCheckedAt)
	return c, err
}

// Page is the public status page and the widget summary.
type Page struct {
	Status       string        `json:"status"` // operational, degraded, major_outage, maintenance
	Components   []Component   `json:"components"`
	Incidents    []Incident    `json:"incidents"`
	Maintenances []Maintenance `json:"maintenances"`
}

// PublicPage is what the public status page (status.get, no credential)
// shows: the overall state, and per component its name, group, state and
// when it was last checked. The check URL, the host, the last HTTP status
// and the failure count are the operator's (the widget, polls, the
// authenticated routes): they map the organization's internal surface and
// say which probe fails how.
type PublicPage struct {
	Status       string            `json:"status"`
	Components   []PublicComponent `json:"components"`
	Incidents    []PublicIncident  `json:"incidents"`
	Maintenances []Maintenance     `json:"maintenances"`
}

type PublicComponent struct {
	Name      string     `json:"component_name"`
	Group     *string    `json:"component_group"`
	Status    string     `json:"status"`
	UpdatedAt *time.Time `json:"updated_at"` // the last check; null before the first
}

// PublicIncident is an open incident as the public reads it: by the
// component's name, without the host.
type PublicIncident struct {
	IncidentID    string    `json:"incident_id"`
	Title         string    `json:"title"`
	Message       string    `json:"message"`
	Severity      string    `json:"severity"`
	Status        string    `json:"status"`
	ComponentName *string   `json:"component_name"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// Public keeps what the public status page shows.
func (p Page) Public() PublicPage {
	out := PublicPage{Status: p.Status, Components: make([]PublicComponent, len(p.Components)),
		Incidents: make([]PublicIncident, len(p.Incidents)), Maintenances: p.Maintenances}
	for i, c := range p.Components {
		out.Components[i] = PublicComponent{Name: c.ComponentName, Group: c.ComponentGroup, Status: c.Status, UpdatedAt: c.LastCheckedAt}
	}
	for i, inc := range p.Incidents {
		out.Incidents[i] = PublicIncident{IncidentID: inc.IncidentID, Title: inc.Title, Message: inc.Message, Severity: inc.Severity,
			Status: inc.Status, ComponentName: inc.ComponentName, CreatedAt: inc.CreatedAt, UpdatedAt: inc.UpdatedAt}
	}
	if out.Maintenances == nil {
		out.Maintenances = []Maintenance{}
	}
	return out
}

func (q *Queries) Page(ctx context.Context, org string) (Page, error) {
	var p Page
	var err error
	if p.Components, err = q.Components(ctx, org); err != nil {
		return Page{}, err
	}
	if p.Incidents, err = q.Incidents(ctx, org, IncidentFilter{Status: "open", Limit: 50}); err != nil {
		return Page{}, err
	}
	if p.Maintenances, err = q.Maintenances(ctx, org, false); err != nil {
		return Page{}, err
	}
	p.Status = "operational"
	for _, m := range p.Maintenances {
		if m.Status == "in_progress" {
			p.Status = "maintenance"
		}
	}
	for _, c := range p.Components {
		if c.Status == "degraded" {
			p.Status = "degraded"
		}
	}
	for _, i := range p.Incidents {
		if i.Severity == "critical" {
			p.Status = "major_outage"
			break
		}
		p.Status = "degraded"
	}
	return p, nil
}
