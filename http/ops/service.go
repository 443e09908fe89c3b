package ops

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/mux"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/platform/backend/domain/errs"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
)

// Output schemas of the ops service (http/outputs.go).
var (
	historyOut = httpapi.ObjectOf(map[string]json.RawMessage{
		"events": httpapi.ArrayOf(httpapi.OutputOf(history.Entry{}, httpapi.FormatOf("event_id", "uuid"))),
		"next":   httpapi.Raw(`{"type":"string","description":"the after cursor of the next page; empty at the end"}`)})
	generationsOut = httpapi.ObjectOf(map[string]json.RawMessage{"generations": httpapi.ArrayOf(httpapi.OutputOf(projections.Generation{},
		httpapi.EnumOf("state", "building", "active", "retired"), httpapi.WithSchema("generation", `{"type":"integer","minimum":1}`)))})
	replayOut = httpapi.ObjectOf(map[string]json.RawMessage{"projection": httpapi.Raw(httpapi.StringOutput),
		"generation": httpapi.Raw(`{"type":"integer","minimum":1}`), "state": httpapi.Raw(`{"const":"building"}`)})
)

// Deps are what operators and auditors call.
type Deps struct {
	Pool    *pgxpool.Pool
	Engine  *projections.Engine
	History *history.Queries
}

// PrivilegedHistory is the permission to read what later events superseded
// in the history (an edited or deleted note's words): held by organization
// admins and above (their role bundles have every :manage action), not by
// members and guests.
const PrivilegedHistory = "ops.history:manage"

// Service is the operators' and auditors' surface: event history,
// projection state and rebuilds, Prometheus metrics.
func Service(d Deps) httpapi.Service {
	return httpapi.Service{
		AppID: "ops",
		Name:  "ops",
		Actions: []httpapi.Action{
			{
				Name: "history.list", Method: http.MethodGet, Path: "/api/history", Permission: "history:read", ReadOnly: true,
				Summary: "The organization's event history, oldest first, paginated by cursor; what later events replaced " +
					"(an edited or deleted note's words) only with history:manage, what was erased never", ReadModel: history.Name,
				OutputSchema: historyOut,
				InputSchema: httpapi.Object(nil, map[string]string{
					"streamId": httpapi.NonEmptyID, "type": httpapi.NonEmptyID, "since": httpapi.DateTimeSchema(), "until": httpapi.DateTimeSchema(),
					"after": `{"type":"string","format":"uuid"}`, "limit": `{"type":"integer","minimum":1,"maximum":500}`}),
				Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
					var in struct {
						StreamID string     `json:"streamId"`
						Type     string     `json:"type"`
						Since    *time.Time `json:"since"`
						Until    *time.Time `json:"until"`
						After    string     `json:"after"`
						Limit    int        `json:"limit"`
					}
					if err := c.Decode(&in); err != nil {
						return httpapi.Reply{}, err
					}
					// history:manage (organization admins and above by default)
					// also sees what later events superseded (event.AuditRule).
					list, next, err := d.History.List(ctx, history.Filter{OrganizationID: c.Principal.OrganizationID,
						StreamID: in.StreamID, Type: in.Type, Since: in.Since, Until: in.Until, After: in.After, Limit: in.Limit,
						Privileged: c.Principal.Allows(PrivilegedHistory)})
					if err != nil {
						return httpapi.Reply{}, err
					}
					if list == nil {
						list = []history.Entry{}
					}
					return httpapi.OK(map[string]any{"events": list, "next": next}), nil
				},
			},
			{
				Name: "projections.list", Method: http.MethodGet, Path: "/api/projections", Permission: "projections:read", ReadOnly: true,
				Summary: "Every projection generation and its state", OutputSchema: generationsOut,
				Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
					gens, err := projections.Generations(ctx, d.Pool)
					return httpapi.OK(map[string]any{"generations": gens}), err
				},
			},
			{
				Name: "projections.replay", Method: http.MethodPost, Path: "/api/projections/{name}/replay", Permission: "projections:replay",
				SuccessStatus: http.StatusAccepted, Summary: "Rebuild a projection from offset zero into a new generation; queries switch when it has caught up",
				OutputSchema: replayOut,
				InputSchema:  httpapi.Object([]string{"name"}, map[string]string{"name": httpapi.NonEmptyID}),
				Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
					var in struct {
						Name string `json:"name"`
					}
					if err := c.Decode(&in); err != nil {
						return httpapi.Reply{}, err
					}
					// A projection without versioned tables (the notification delivery
					// log) is not rebuilt: rebuilds never re-send notifications.
					if p, ok := d.Engine.Projection(in.Name); !ok || len(p.Tables()) == 0 {
						return httpapi.Reply{}, errs.NotFound("rebuildable projection " + in.Name)
					}
					gen, err := projections.RequestRebuild(ctx, d.Pool, in.Name)
					return httpapi.OK(map[string]any{"projection": in.Name, "generation": gen, "state": "building"}), err
				},
			},
		},
		Routes: func(r *mux.Router) {
			r.Handle("/metrics", promhttp.Handler()).Methods(http.MethodGet)
		},
	}
}
