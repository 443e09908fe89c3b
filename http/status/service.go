package status

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	statuscmd "github.com/platform/backend/commands/status"
	"github.com/platform/backend/domain/principal"
	statusdomain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	statusview "github.com/platform/backend/projections/status"
)

// Deps are what the status service's routes call.
type Deps struct {
	Commands *statuscmd.Handlers
	Queries  *statusview.Queries
	Checker  *statuscmd.Checker
	// PublicOrganizationID owns the public status page (GET /api/status).
	PublicOrganizationID string
}

const (
	severityEnum       = `{"type":"string","enum":["minor","major","critical"]}`
	incidentStatusEnum = `{"type":"string","enum":["investigating","identified","monitoring","resolved"]}`
	booleanSchema      = `{"type":"boolean"}`
)

// publicPageOut is the public status page (status.get): names, groups,
// states and times only (projections/status.PublicPage). Closed objects, so
// a member added to the page is a decision, not an accident.
const publicPageOut = `{"type":"object","additionalProperties":false,"required":["status","components","incidents","maintenances"],"properties":{
	"status":{"type":"string","enum":["operational","degraded","major_outage","maintenance"]},
	"components":{"type":"array","items":{"type":"object","additionalProperties":false,
		"required":["component_name","component_group","status","updated_at"],"properties":{
		"component_name":{"type":"string"},"component_group":{"type":["string","null"]},
		"status":{"type":"string","enum":["operational","degraded"]},
		"updated_at":{"type":["string","null"],"format":"date-time","description":"the last check; null before the first"}}}},
	"incidents":{"type":"array","items":{"type":"object","additionalProperties":false,
		"required":["incident_id","title","message","severity","status","component_name","created_at","updated_at"],"properties":{
		"incident_id":{"type":"string"},"title":{"type":"string"},"message":{"type":"string"},
		"severity":{"type":"string","enum":["minor","major","critical"]},
		"status":{"type":"string","enum":["investigating","identified","monitoring"]},
		"component_name":{"type":["string","null"]},
		"created_at":{"type":"string","format":"date-time"},"updated_at":{"type":"string","format":"date-time"}}}},
	"maintenances":{"type":"array","items":{"type":"object","additionalProperties":false,
		"required":["maintenance_id","title","message","status","revision","scheduled_start","scheduled_end","updated_at"],"properties":{
		"maintenance_id":{"type":"string"},"title":{"type":"string"},"message":{"type":"string"},
		"status":{"type":"string","enum":["scheduled","in_progress"]},"revision":{"type":"integer"},
		"scheduled_start":{"type":"string","format":"date-time"},"scheduled_end":{"type":"string","format":"date-time"},
		"updated_at":{"type":"string","format":"date-time"}}}}}}`

// Output schemas of the status service (http/outputs.go).
var (
	severityOut      = []string{"minor", "major", "critical"}
	incidentOut      = httpapi.OutputOf(statusdomain.IncidentState{}, httpapi.EnumOf("severity", severityOut...), httpapi.EnumOf("status", incidentStatuses...))
	incidentStatuses = []string{"investigating", "identified", "monitoring", "resolved"}
	maintenanceOut   = httpapi.OutputOf(statusdomain.MaintenanceState{}, httpapi.EnumOf("status", "scheduled", "in_progress", "completed"))
	componentOut     = httpapi.OutputOf(statusdomain.ComponentState{}, httpapi.EnumOf("status", "operational", "degraded"), httpapi.FormatOf("check_url", "uri"))
	pollOut          = httpapi.OutputOf(statuscmd.PollReport{}, httpapi.EnumOf("results[].status", "operational", "degraded"))
	incidentListOut  = httpapi.ObjectOf(map[string]json.RawMessage{"incidents": httpapi.ArrayOf(httpapi.OutputOf(statusview.Incident{},
		httpapi.EnumOf("severity", severityOut...), httpapi.EnumOf("status", incidentStatuses...),
		httpapi.EnumOf("updates[].severity", severityOut...), httpapi.EnumOf("updates[].status", incidentStatuses...)))})
)

// Bounded string members of the status service (limits: domain/text).
var (
	titleSchema   = httpapi.LineSchema(1, text.MaxTitle)
	messageSchema = httpapi.TextSchema(1, text.MaxMessage)
)

// Service is seed 002's status service: 8 actions, the Statuspage-compatible
// reads and its health route; the ninth, widget.get, is the kernel's, bound
// from Widget.
func Service(d Deps) httpapi.Service {
	return httpapi.Service{
		AppID: "status",
		Name:  "status",
		Actions: append([]httpapi.Action{
			{
				Name: "status.get", Method: http.MethodGet, Path: "/api/status", ReadOnly: true,
				Summary: "Public status page: overall state, components (name, group, state, last check), open incidents, " +
					"upcoming and running maintenance", ReadModel: statusview.Name, OutputSchema: json.RawMessage(publicPageOut),
				Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
					page, err := d.Queries.Page(ctx, d.PublicOrganizationID)
					if err != nil {
						return httpapi.Reply{}, err
					}
					return httpapi.OK(page.Public()), nil
				},
			},
			{
				Name: "status.poll", Method: http.MethodPost, Path: "/poll", Permission: "status:poll",
				Summary: "Poll every configured surface of the caller's organization now", OutputSchema: pollOut,
				Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
					// Rate-limited per organization; the components come from the
					// write side, so an upsert just before is polled.
					report, err := d.Commands.PollOrganization(ctx, c.Meta, d.Checker)
					if err != nil {
						return httpapi.Reply{}, err
					}
					return httpapi.OK(report), nil
				},
			},
			httpapi.Command(httpapi.Action{
				Name: "incidents.create", Method: http.MethodPost, Path: "/api/incidents", Permission: "status:write",
				SuccessStatus: http.StatusCreated, Summary: "Open an incident (investigating, revision 1)", OutputSchema: incidentOut,
				InputSchema: httpapi.Object([]string{"title", "message", "severity"}, map[string]string{
					"title": titleSchema, "message": messageSchema, "severity": severityEnum,
					"componentHost": httpapi.NullableLine(text.MaxHost), "componentName": httpapi.NullableLine(text.MaxTitle)}),
			}, d.Commands.CreateIncident),
			httpapi.Command(httpapi.Action{
				Name: "incidents.update", Method: http.MethodPatch, Path: "/api/incidents/{incidentId}", Permission: "status:write",
				Summary: "Publish an update to an open incident; status resolved resolves it", OutputSchema: incidentOut,
				InputSchema: httpapi.Object([]string{"incidentId", "message"}, map[string]string{
					"incidentId": httpapi.NonEmptyID, "status": incidentStatusEnum, "message": messageSchema, "severity": severityEnum, "title": titleSchema}),
			}, d.Commands.UpdateIncident),
			httpapi.Query(httpapi.Action{
				Name: "incidents.list", Method: http.MethodGet, Path: "/api/incidents", Permission: "status:read", ReadOnly: true,
				Summary: "List the organization's incidents, newest first", ReadModel: statusview.Name, OutputSchema: incidentListOut,
				InputSchema: httpapi.Object(nil, map[string]string{
					"status": `{"type":"string","enum":["open","resolved","all"]}`, "limit": `{"type":"integer","minimum":1,"maximum":200}`,
					"incidentId": httpapi.NonEmptyID}),
			}, d.listIncidents),
			httpapi.Command(httpapi.Action{
				Name: "maintenance.schedule", Method: http.MethodPost, Path: "/api/maintenance", Permission: "status:write",
				SuccessStatus: http.StatusCreated, Summary: "Schedule a maintenance window (scheduled, revision 1); autoStart/autoComplete start and complete it at its times", OutputSchema: maintenanceOut,
				InputSchema: httpapi.Object([]string{"title", "message", "scheduledStart", "scheduledEnd"}, map[string]string{
					"title": titleSchema, "message": messageSchema,
					"scheduledStart": httpapi.DateTimeSchema(), "scheduledEnd": httpapi.DateTimeSchema(),
					"autoStart": booleanSchema, "autoComplete": booleanSchema}),
			}, d.Commands.ScheduleMaintenance),
			httpapi.Command(httpapi.Action{
				Name: "maintenance.update", Method: http.MethodPatch, Path: "/api/maintenance/{maintenanceId}", Permission: "status:write",
				Summary:      "Start (in_progress, revision 2) or complete (completed, revision 3) a maintenance window, or reschedule it (times, autoStart, autoComplete)",
				OutputSchema: maintenanceOut,
				// status, or a reschedule (the window's timers move with it), or both.
				InputSchema: httpapi.RequireAnyOf(httpapi.Object([]string{"maintenanceId"}, map[string]string{
					"maintenanceId": httpapi.NonEmptyID, "status": `{"type":"string","enum":["in_progress","completed"]}`, "message": httpapi.TextSchema(0, text.MaxMessage),
					"scheduledStart": httpapi.DateTimeSchema(), "scheduledEnd": httpapi.DateTimeSchema(),
					"autoStart": booleanSchema, "autoComplete": booleanSchema}),
					"status", "scheduledStart", "scheduledEnd", "autoStart", "autoComplete"),
			}, d.Commands.UpdateMaintenance),
			httpapi.Command(httpapi.Action{
				Name: "components.upsert", Method: http.MethodPut, Path: "/api/components/{componentId}", Permission: "status:write",
				Summary: "Register a monitored surface or change it", OutputSchema: componentOut,
				InputSchema: httpapi.Object([]string{"componentId", "componentHost", "componentName", "checkUrl"}, map[string]string{
					"componentId":   `{"type":"string","maxLength":63,"pattern":"^[a-z0-9][a-z0-9._-]{0,62}$"}`,
					"componentHost": httpapi.LineSchema(1, text.MaxHost), "componentName": titleSchema, "componentGroup": httpapi.NullableLine(text.MaxTitle),
					"checkUrl": httpapi.URLSchema("https?"), "autoIncident": booleanSchema}),
			}, d.Commands.DefineComponent),
		}, statuspageActions(d)...), // GET /api/v2/*.json: statuspage.go
		Routes: func(r *mux.Router) {
			statusPageRoutes(d)(r) // GET / and GET /feed.atom: page.go, feed.go
		},
	}
}

// ListIncidents is the input of incidents.list.
type ListIncidents struct {
	Status     string `json:"status"`
	Limit      int    `json:"limit"`
	IncidentID string `json:"incidentId"`
}

// IncidentList is the answer of incidents.list.
type IncidentList struct {
	Incidents []statusview.Incident `json:"incidents"`
}

// listIncidents is incidents.list: one incident by id, or a page filtered
// by status (open, resolved, all).
func (d Deps) listIncidents(ctx context.Context, p principal.Principal, in ListIncidents) (IncidentList, error) {
	if in.IncidentID != "" {
		inc, err := d.Queries.Incident(ctx, p.OrganizationID, in.IncidentID)
		if err != nil {
			return IncidentList{}, err
		}
		return IncidentList{Incidents: []statusview.Incident{inc}}, nil
	}
	if in.Status == "all" {
		in.Status = ""
	}
	list, err := d.Queries.Incidents(ctx, p.OrganizationID, statusview.IncidentFilter{Status: in.Status, Limit: in.Limit})
	return IncidentList{Incidents: list}, err
}

// WidgetFigures are the status tile's figures: the organization's overall
// state and what makes it so.
type WidgetFigures struct {
	Status               string `json:"status"` // operational, degraded, major_outage, maintenance
	OpenIncidents        int    `json:"open_incidents"`
	DegradedComponents   int    `json:"degraded_components"`
	UpcomingMaintenances int    `json:"upcoming_maintenances"` // scheduled or in progress
}

// Widget is the status service's dashboard tile (seed 002: widget.get,
// status:read), for the caller's organization.
func Widget(d Deps) *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "Status", Permission: "status:read", ReadModel: statusview.Name,
		Summary: "Status summary of the caller's organization for the dashboard grid: overall state, open incidents, " +
			"degraded components, upcoming and running maintenance"},
		func(ctx context.Context, p principal.Principal) (WidgetFigures, error) {
			page, err := d.Queries.Page(ctx, p.OrganizationID)
			if err != nil {
				return WidgetFigures{}, err
			}
			f := WidgetFigures{Status: page.Status, OpenIncidents: len(page.Incidents), UpcomingMaintenances: len(page.Maintenances)}
			for _, comp := range page.Components {
				if comp.Status == "degraded" {
					f.DegradedComponents++
				}
			}
			return f, nil
		}, httpapi.EnumOf("status", "operational", "degraded", "major_outage", "maintenance"))
}
