package status

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
	httpapi "github.com/platform/backend/http"
	statusview "github.com/platform/backend/projections/status"
)

// The Statuspage-compatible read API (issue 23): GET /api/v2/summary.json,
// status.json, incidents.json and scheduled-maintenances.json in Atlassian
// Statuspage's public shape, which status aggregators and chat integrations
// read, for the public organization (STATUS_PUBLIC_ORGANIZATION_ID), from
// the read model of GET /api/status and the page (readPublicStatus): the
// same public members only (names, groups, states, times; never a check URL,
// a host or a failure count). Ids are name-based UUIDs like the feed's, so
// component ids (chosen by the tenant) are not disclosed.

// StatuspageSchema is the JSON Schema of the answers, written from
// Statuspage's public API documentation; each action's output schema is
// its definition, inlined.
//
//go:embed statuspage-v2.schema.json
var StatuspageSchema []byte

// statuspageOut is the output schema of one answer: the schema's
// definition name with every $ref inlined.
func statuspageOut(name string) json.RawMessage {
	var doc struct {
		Defs map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(StatuspageSchema, &doc); err != nil {
		panic(fmt.Sprintf("statuspage schema: %v", err))
	}
	var inline func(v any) any
	inline = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				return inline(doc.Defs[strings.TrimPrefix(ref, "#/$defs/")])
			}
			out := make(map[string]any, len(v))
			for k, m := range v {
				out[k] = inline(m)
			}
			return out
		case []any:
			out := make([]any, len(v))
			for i, m := range v {
				out[i] = inline(m)
			}
			return out
		}
		return v
	}
	raw, err := json.Marshal(inline(doc.Defs[name]))
	if err != nil {
		panic(err)
	}
	return raw
}

// Statuspage's objects.
type (
	spPage struct {
		ID        string    `json:"id"`
		Name      string    `json:"name"`
		URL       string    `json:"url"`
		TimeZone  string    `json:"time_zone"`
		UpdatedAt time.Time `json:"updated_at"`
	}
	spStatus struct {
		Indicator   string `json:"indicator"`
		Description string `json:"description"`
	}
	spComponent struct {
		ID                 string    `json:"id"`
		Name               string    `json:"name"`
		Status             string    `json:"status"`
		CreatedAt          time.Time `json:"created_at"`
		UpdatedAt          time.Time `json:"updated_at"`
		Position           int       `json:"position"`
		Description        *string   `json:"description"`
		Showcase           bool      `json:"showcase"`
		StartDate          *string   `json:"start_date"`
		GroupID            *string   `json:"group_id"`
		PageID             string    `json:"page_id"`
		Group              bool      `json:"group"`
		OnlyShowIfDegraded bool      `json:"only_show_if_degraded"`
		Components         []string  `json:"components,omitempty"`
	}
	spUpdate struct {
		ID                   string    `json:"id"`
		Status               string    `json:"status"`
		Body                 string    `json:"body"`
		IncidentID           string    `json:"incident_id"`
		CreatedAt            time.Time `json:"created_at"`
		UpdatedAt            time.Time `json:"updated_at"`
		DisplayAt            time.Time `json:"display_at"`
		AffectedComponents   []any     `json:"affected_components"`
		DeliverNotifications bool      `json:"deliver_notifications"`
		CustomTweet          *string   `json:"custom_tweet"`
		TweetID              *string   `json:"tweet_id"`
	}
	spIncident struct {
		ID              string        `json:"id"`
		Name            string        `json:"name"`
		Status          string        `json:"status"`
		CreatedAt       time.Time     `json:"created_at"`
		UpdatedAt       time.Time     `json:"updated_at"`
		MonitoringAt    *time.Time    `json:"monitoring_at"`
		ResolvedAt      *time.Time    `json:"resolved_at"`
		Impact          string        `json:"impact"`
		Shortlink       string        `json:"shortlink"`
		StartedAt       time.Time     `json:"started_at"`
		PageID          string        `json:"page_id"`
		IncidentUpdates []spUpdate    `json:"incident_updates"`
		Components      []spComponent `json:"components"`
		ScheduledFor    *time.Time    `json:"scheduled_for,omitempty"`
		ScheduledUntil  *time.Time    `json:"scheduled_until,omitempty"`
	}
	spSummary struct {
		Page                  spPage        `json:"page"`
		Components            []spComponent `json:"components"`
		Incidents             []spIncident  `json:"incidents"`
		ScheduledMaintenances []spIncident  `json:"scheduled_maintenances"`
		Status                spStatus      `json:"status"`
	}
	spStatusDocument struct {
		Page   spPage   `json:"page"`
		Status spStatus `json:"status"`
	}
	spIncidents struct {
		Page      spPage       `json:"page"`
		Incidents []spIncident `json:"incidents"`
	}
	spMaintenances struct {
		Page                  spPage       `json:"page"`
		ScheduledMaintenances []spIncident `json:"scheduled_maintenances"`
	}
)

// statuspageLimit: Statuspage's incidents.json and scheduled-maintenances.json
// list the 50 most recent.
const statuspageLimit = 50

// Statuspage's words for an indicator (its documentation's examples).
var indicatorDescriptions = map[string]string{
	"none": "All Systems Operational", "minor": "Minor Service Outage", "major": "Partial System Outage",
	"critical": "Major Service Outage", "maintenance": "Service Under Maintenance",
}

var impactRank = map[string]int{"none": 0, "minor": 1, "major": 2, "critical": 3}

// componentStatuses: a component the checks found failing (three in a row)
// is degraded_performance, as the page says "degraded" (an incident, not a
// check, says how bad).
var componentStatuses = map[string]string{"operational": "operational", "degraded": "degraded_performance"}

// statuspage is the Statuspage view of what the page shows.
type statuspage struct {
	s          publicStatus
	page       spPage
	components []spComponent
	byName     map[string]spComponent
}

func statuspageID(kind, name string) string {
	return strings.ReplaceAll(uuid.NewSHA1(statusFeedNamespace, []byte(kind+":"+name)).String(), "-", "")
}

func newStatuspage(org string, s publicStatus) statuspage {
	sp := statuspage{s: s, byName: map[string]spComponent{}}
	sp.page = spPage{ID: statuspageID("organization", org), Name: statusPageTitle, URL: "/", TimeZone: "Etc/UTC",
		UpdatedAt: time.Unix(0, 0).UTC()}
	touch := func(t time.Time) {
		if t.After(sp.page.UpdatedAt) {
			sp.page.UpdatedAt = t.UTC()
		}
	}
	groups := map[string]*spComponent{}
	var order []string // top-level ids in page order
	all := map[string]*spComponent{}
	for _, c := range s.Page.Components {
		updated := time.Unix(0, 0).UTC()
		if c.UpdatedAt != nil {
			updated = c.UpdatedAt.UTC()
			touch(updated)
		}
		comp := spComponent{ID: statuspageID("component", c.Name), Name: c.Name, Status: componentStatuses[c.Status], CreatedAt: updated,
			UpdatedAt: updated, PageID: sp.page.ID}
		if c.Group != nil {
			g, ok := groups[*c.Group]
			if !ok {
				g = &spComponent{ID: statuspageID("group", *c.Group), Name: *c.Group, Status: "operational", CreatedAt: updated,
					UpdatedAt: updated, PageID: sp.page.ID, Group: true, Components: []string{}}
				groups[*c.Group] = g
				all[g.ID] = g
				order = append(order, g.ID)
			}
			g.Components = append(g.Components, comp.ID)
			if comp.Status != "operational" {
				g.Status = comp.Status
			}
			if updated.After(g.UpdatedAt) {
				g.UpdatedAt = updated
			}
			gid := g.ID
			comp.GroupID = &gid
		} else {
			order = append(order, comp.ID)
		}
		all[comp.ID] = &comp
	}
	// Statuspage lists a group, then its components, each numbered.
	position := 0
	// byName (an incident's component) holds them as listed, positions set.
	for _, id := range order {
		c := all[id]
		position++
		c.Position = position
		sp.components = append(sp.components, *c)
		if !c.Group {
			sp.byName[c.Name] = *c
		}
		for _, member := range c.Components {
			m := all[member]
			position++
			m.Position = position
			sp.components = append(sp.components, *m)
			sp.byName[m.Name] = *m
		}
	}
	if sp.components == nil {
		sp.components = []spComponent{}
	}
	for _, i := range s.Page.Incidents {
		touch(i.UpdatedAt)
	}
	for _, m := range s.Page.Maintenances {
		touch(m.UpdatedAt)
	}
	return sp
}

// status is the page's rollup: the most severe open incident's impact,
// minor for a degraded component, maintenance while a window runs.
func (sp statuspage) status() spStatus {
	indicator := "none"
	raise := func(i string) {
		if impactRank[i] > impactRank[indicator] {
			indicator = i
		}
	}
	for _, i := range sp.s.Page.Incidents {
		raise(i.Severity)
	}
	for _, c := range sp.s.Page.Components {
		if c.Status == "degraded" {
			raise("minor")
		}
	}
	if indicator == "none" && sp.s.Page.Status == "maintenance" {
		indicator = "maintenance"
	}
	return spStatus{Indicator: indicator, Description: indicatorDescriptions[indicator]}
}

// incident is an incident with its timeline (newest first).
func (sp statuspage) incident(id, title, severity, status string, component *string, created, updated time.Time,
	timeline []statusview.IncidentUpdate) spIncident {
	out := spIncident{ID: id, Name: title, Status: status, CreatedAt: created, UpdatedAt: updated, Impact: severity,
		Shortlink: "/#incident-" + id, StartedAt: created, PageID: sp.page.ID, IncidentUpdates: []spUpdate{}, Components: []spComponent{}}
	if component != nil {
		if c, ok := sp.byName[*component]; ok {
			out.Components = append(out.Components, c)
		}
	}
	for _, u := range slices.Backward(timeline) {
		at := u.OccurredAt
		out.IncidentUpdates = append(out.IncidentUpdates, spUpdate{ID: statuspageID("incident_update", id+":"+strconv.Itoa(u.Revision)),
			Status: u.Status, Body: u.Message, IncidentID: id, CreatedAt: at, UpdatedAt: at, DisplayAt: at, DeliverNotifications: true})
		if u.Status == "monitoring" && (out.MonitoringAt == nil || at.Before(*out.MonitoringAt)) {
			out.MonitoringAt = &at
		}
		if u.Status == "resolved" {
			out.ResolvedAt = &at
		}
	}
	return out
}

// maintenance is a window as Statuspage's scheduled maintenance: its
// current state as its one update (the read model keeps the window, not
// its revisions), created and updated at its last change.
func (sp statuspage) maintenance(m statusview.Maintenance) spIncident {
	start, end := m.ScheduledStart, m.ScheduledEnd
	out := spIncident{ID: m.MaintenanceID, Name: m.Title, Status: m.Status, CreatedAt: m.UpdatedAt, UpdatedAt: m.UpdatedAt,
		Impact: "maintenance", Shortlink: "/#maintenance-" + m.MaintenanceID, StartedAt: start, PageID: sp.page.ID,
		Components: []spComponent{}, ScheduledFor: &start, ScheduledUntil: &end,
		IncidentUpdates: []spUpdate{{ID: statuspageID("maintenance_update", m.MaintenanceID+":"+strconv.Itoa(m.Revision)),
			Status: m.Status, Body: m.Message, IncidentID: m.MaintenanceID, CreatedAt: m.UpdatedAt, UpdatedAt: m.UpdatedAt,
			DisplayAt: m.UpdatedAt, DeliverNotifications: true}}}
	if m.Status == "completed" {
		out.ResolvedAt = &out.UpdatedAt
	}
	return out
}

func (sp statuspage) openIncidents() []spIncident {
	out := []spIncident{}
	for _, i := range sp.s.Page.Incidents {
		out = append(out, sp.incident(i.IncidentID, i.Title, i.Severity, i.Status, i.ComponentName, i.CreatedAt, i.UpdatedAt, sp.s.Timelines[i.IncidentID]))
	}
	return out
}

func (sp statuspage) openMaintenances() []spIncident {
	out := []spIncident{}
	for _, m := range sp.s.Page.Maintenances {
		out = append(out, sp.maintenance(m))
	}
	return out
}

// readStatuspage reads the public organization's page; without one, every
// route is 404, as the page is.
func (d Deps) readStatuspage(ctx context.Context) (statuspage, error) {
	if d.PublicOrganizationID == "" {
		return statuspage{}, errs.NotFound("public status page")
	}
	s, err := d.readPublicStatus(ctx, time.Now())
	if err != nil {
		return statuspage{}, err
	}
	return newStatuspage(d.PublicOrganizationID, s), nil
}

// statuspageActions are the four public reads. Public and read-only like
// status.get, limited per client address by the kernel.
func statuspageActions(d Deps) []httpapi.Action {
	action := func(name, path, summary, schema string, answer func(ctx context.Context, sp statuspage) (any, error)) httpapi.Action {
		return httpapi.Action{Name: name, Method: http.MethodGet, Path: path, ReadOnly: true, Summary: summary,
			ReadModel: statusview.Name, OutputSchema: statuspageOut(schema),
			Handle: func(ctx context.Context, _ *httpapi.Call) (httpapi.Reply, error) {
				sp, err := d.readStatuspage(ctx)
				if err != nil {
					return httpapi.Reply{}, err
				}
				body, err := answer(ctx, sp)
				if err != nil {
					return httpapi.Reply{}, err
				}
				return httpapi.OK(body), nil
			}}
	}
	return []httpapi.Action{
		action("statuspage.summary.get", "/api/v2/summary.json",
			"Statuspage-compatible summary of the public status page: page, components, unresolved incidents, upcoming and running maintenance, status",
			"summary", func(_ context.Context, sp statuspage) (any, error) {
				return spSummary{Page: sp.page, Components: sp.components, Incidents: sp.openIncidents(),
					ScheduledMaintenances: sp.openMaintenances(), Status: sp.status()}, nil
			}),
		action("statuspage.status.get", "/api/v2/status.json", "Statuspage-compatible rollup of the public status page: indicator and description",
			"statusDocument", func(_ context.Context, sp statuspage) (any, error) {
				return spStatusDocument{Page: sp.page, Status: sp.status()}, nil
			}),
		action("statuspage.incidents.list", "/api/v2/incidents.json",
			"Statuspage-compatible list of the public status page's 50 most recent incidents, resolved ones included, with their updates",
			"incidentsDocument", func(ctx context.Context, sp statuspage) (any, error) {
				all, err := d.Queries.Incidents(ctx, d.PublicOrganizationID, statusview.IncidentFilter{Limit: statuspageLimit})
				if err != nil {
					return nil, err
				}
				ids := make([]string, len(all))
				for i, inc := range all {
					ids[i] = inc.IncidentID
				}
				timelines, err := d.Queries.Timelines(ctx, d.PublicOrganizationID, ids)
				if err != nil {
					return nil, err
				}
				out := spIncidents{Page: sp.page, Incidents: []spIncident{}}
				for _, i := range all {
					out.Incidents = append(out.Incidents, sp.incident(i.IncidentID, i.Title, i.Severity, i.Status, i.ComponentName,
						i.CreatedAt, i.UpdatedAt, timelines[i.IncidentID]))
				}
				return out, nil
			}),
		action("statuspage.scheduled_maintenances.list", "/api/v2/scheduled-maintenances.json",
			"Statuspage-compatible list of the public status page's 50 most recent maintenance windows, completed ones included",
			"scheduledMaintenancesDocument", func(ctx context.Context, sp statuspage) (any, error) {
				all, err := d.Queries.Maintenances(ctx, d.PublicOrganizationID, true)
				if err != nil {
					return nil, err
				}
				slices.SortStableFunc(all, func(a, b statusview.Maintenance) int { return b.ScheduledStart.Compare(a.ScheduledStart) })
				out := spMaintenances{Page: sp.page, ScheduledMaintenances: []spIncident{}}
				for _, m := range all[:min(len(all), statuspageLimit)] {
					out.ScheduledMaintenances = append(out.ScheduledMaintenances, sp.maintenance(m))
				}
				return out, nil
			}),
	}
}
