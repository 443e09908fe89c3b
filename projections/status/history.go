package status

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// The status page for people (GET / and its Atom feed) shows more than the
// JSON page: each incident's update timeline and what ended recently. These
// queries read only what that page shows.

// Timelines returns the update timeline (oldest first) of each of the
// organization's incidents named, by incident id. One query for a page.
func (q *Queries) Timelines(ctx context.Context, org string, ids []string) (map[string][]IncidentUpdate, error) {
	out := make(map[string][]IncidentUpdate, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	sql, err := q.sql(ctx, `SELECT u.incident_id, u.revision, u.status, u.message, u.severity, u.occurred_at
		FROM {{status_incident_updates}} u JOIN {{status_incidents}} i ON i.incident_id = u.incident_id
		WHERE i.organization_id=$1 AND u.incident_id = ANY($2) ORDER BY u.incident_id, u.revision`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var u IncidentUpdate
		if err := rows.Scan(&id, &u.Revision, &u.Status, &u.Message, &u.Severity, &u.OccurredAt); err != nil {
			return nil, err
		}
		out[id] = append(out[id], u)
	}
	return out, rows.Err()
}

// ResolvedSince lists the organization's incidents resolved at or after
// since (by their last update, the resolution), newest first.
func (q *Queries) ResolvedSince(ctx context.Context, org string, since time.Time, limit int) ([]Incident, error) {
	sql, err := q.sql(ctx, `SELECT incident_id, title, message, severity, status, revision, component_host, component_name, created_at, updated_at
		FROM {{status_incidents}} WHERE organization_id=$1 AND status = 'resolved' AND updated_at >= $2
		ORDER BY updated_at DESC, incident_id LIMIT $3`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, since, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Incident, error) {
		var i Incident
		err := r.Scan(&i.IncidentID, &i.Title, &i.Message, &i.Severity, &i.Status, &i.Revision, &i.ComponentHost, &i.ComponentName, &i.CreatedAt, &i.UpdatedAt)
		return i, err
	})
}

// CompletedSince lists the organization's maintenance windows completed at
// or after since (by their last update, the completion), newest first.
func (q *Queries) CompletedSince(ctx context.Context, org string, since time.Time, limit int) ([]Maintenance, error) {
	sql, err := q.sql(ctx, `SELECT maintenance_id, title, message, status, revision, scheduled_start, scheduled_end, updated_at
		FROM {{status_maintenances}} WHERE organization_id=$1 AND status = 'completed' AND updated_at >= $2
		ORDER BY updated_at DESC, maintenance_id LIMIT $3`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, since, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Maintenance, error) {
		var m Maintenance
		err := r.Scan(&m.MaintenanceID, &m.Title, &m.Message, &m.Status, &m.Revision, &m.ScheduledStart, &m.ScheduledEnd, &m.UpdatedAt)
		return m, err
	})
}
