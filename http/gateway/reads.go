package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	gatewayview "github.com/platform/backend/projections/gateway"
)

// Answers of the reads.
type (
	// WidgetFigures are the usage tile's figures (Widget).
	WidgetFigures struct {
		CallsToday        int64   `json:"calls_today"`
		FailuresToday     int64   `json:"failures_today"`
		SpendMonthCents   float64 `json:"spend_month_cents"`
		DegradedProviders int     `json:"degraded_providers"`
	}
	UsageEvents struct {
		Events []gatewayview.UsageEvent `json:"events"`
	}
	DailySnapshots struct {
		Days []gatewayview.DailySnapshot `json:"days"`
	}
	KeyHealth struct {
		Keys []gatewayview.KeyHealth `json:"keys"`
	}
	AuditList struct {
		Entries []gatewayview.AuditEntry `json:"entries"`
	}
)

// Inputs of the reads.
type (
	Empty     struct{}
	ListAudit struct {
		Limit int `json:"limit"`
	}
	ListUsageEvents struct {
		Limit     int        `json:"limit"`
		EventType string     `json:"event_type"`
		Severity  string     `json:"severity"`
		Since     *time.Time `json:"since"`
	}
	DailyInput struct {
		Days int `json:"days"`
	}
)

var (
	healthOut = open(KeyHealth{}, httpapi.EnumOf("keys[].status", gateway.HealthUnknown, gateway.HealthHealthy, gateway.HealthDegraded))
	eventsOut = open(UsageEvents{}, httpapi.EnumOf("events[].severity", gateway.Severities...),
		httpapi.EnumOf("events[].outcome", gateway.Outcomes...))
)

func readArea(d Deps) Area {
	return Area{Actions: []httpapi.Action{
		httpapi.Query(httpapi.Action{
			Name: "organization.get", Method: http.MethodGet, Path: "/api/organization", Permission: "organizations:read", ReadOnly: true,
			Summary: "The caller's organization as the gateway knows it (provisioned by the identity service)", ReadModel: gatewayview.Name,
			OutputSchema: open(gatewayview.Organization{}),
		}, func(ctx context.Context, p principal.Principal, _ Empty) (gatewayview.Organization, error) {
			return d.Queries.Organization(ctx, p.OrganizationID)
		}),
		httpapi.Query(httpapi.Action{
			Name: "audit.list", Method: http.MethodGet, Path: "/api/audit", Permission: "audit:read", ReadOnly: true,
			Summary:   "The gateway's audit trail: configuration changes (caps, fee, meters, provisioning) and provider health transitions, newest first",
			ReadModel: gatewayview.Name, OutputSchema: open(AuditList{}, httpapi.OpenObject("entries[].details")),
			InputSchema: httpapi.Object(nil, map[string]string{"limit": limitSchema}),
		}, func(ctx context.Context, p principal.Principal, in ListAudit) (AuditList, error) {
			entries, err := d.Queries.Audit(ctx, p.OrganizationID, defaultTo(in.Limit, 50))
			return AuditList{Entries: entries}, err
		}),
		httpapi.Query(httpapi.Action{
			Name: "usage.events.list", Method: http.MethodGet, Path: "/api/usage/events", Permission: "usage:read", ReadOnly: true,
			Summary: "Usage events (every provider attempt, success or failure), newest first; event_type is the action " +
				"(ai.completions, ...), severity info, warning or error", ReadModel: gatewayview.Name, OutputSchema: eventsOut,
			InputSchema: httpapi.Object(nil, map[string]string{"limit": limitSchema, "event_type": httpapi.LineSchema(1, text.MaxID),
				"severity": `{"type":"string","enum":["info","warning","error"]}`, "since": httpapi.DateTimeSchema()}),
		}, func(ctx context.Context, p principal.Principal, in ListUsageEvents) (UsageEvents, error) {
			events, err := d.Queries.UsageEvents(ctx, p.OrganizationID, gatewayview.UsageFilter{EventType: in.EventType,
				Severity: in.Severity, Since: in.Since, Limit: defaultTo(in.Limit, 50)})
			return UsageEvents{Events: events}, err
		}),
		httpapi.Query(httpapi.Action{
			Name: "usage.snapshots.daily", Method: http.MethodGet, Path: "/api/usage/snapshots/daily", Permission: "usage:read", ReadOnly: true,
			Summary: "Usage per day (UTC) for the last days (default 30), oldest first: calls, failures, tokens, cost", ReadModel: gatewayview.Name,
			OutputSchema: open(DailySnapshots{}, httpapi.FormatOf("days[].day", "date")),
			InputSchema:  httpapi.Object(nil, map[string]string{"days": `{"type":"integer","minimum":1,"maximum":90}`}),
		}, func(ctx context.Context, p principal.Principal, in DailyInput) (DailySnapshots, error) {
			days, err := d.Queries.Daily(ctx, p.OrganizationID, defaultTo(in.Days, 30), d.now())
			return DailySnapshots{Days: days}, err
		}),
		httpapi.Query(httpapi.Action{
			Name: "usage.key_health.get", Method: http.MethodGet, Path: "/api/usage/key-health", Permission: "usage:read", ReadOnly: true,
			Summary:   "Health per provider and connection: state, last success and failure, failure rate (failures the provider or the key caused)",
			ReadModel: gatewayview.Name, OutputSchema: healthOut,
		}, func(ctx context.Context, p principal.Principal, _ Empty) (KeyHealth, error) {
			keys, err := d.Queries.KeyHealth(ctx, p.OrganizationID)
			return KeyHealth{Keys: keys}, err
		}),
	}}
}

// Widget is the gateway's dashboard tile (seed 001: widget.get,
// dashboard:read): the caller's organization's calls and failures today,
// month-to-date spend, degraded providers.
func Widget(d Deps) *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "Usage", Permission: "dashboard:read", ReadModel: gatewayview.Name,
		Summary: "Usage summary of the caller's organization for the dashboard grid: calls and failures today, month-to-date spend, degraded providers"},
		d.widget)
}

func (d Deps) widget(ctx context.Context, p principal.Principal) (WidgetFigures, error) {
	days, err := d.Queries.Daily(ctx, p.OrganizationID, 1, d.now())
	if err != nil {
		return WidgetFigures{}, err
	}
	overview, err := d.Queries.Overview(ctx, p.OrganizationID, d.now())
	if err != nil {
		return WidgetFigures{}, err
	}
	keys, err := d.Queries.KeyHealth(ctx, p.OrganizationID)
	if err != nil {
		return WidgetFigures{}, err
	}
	w := WidgetFigures{SpendMonthCents: overview.ChargedCents}
	if len(days) > 0 {
		w.CallsToday, w.FailuresToday = days[0].Calls, days[0].Failures
	}
	degraded := map[string]bool{}
	for _, k := range keys {
		if k.Status == gateway.HealthDegraded {
			degraded[k.Provider] = true
		}
	}
	w.DegradedProviders = len(degraded)
	return w, nil
}

func defaultTo(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// ActionItems are the gateway's entries in the dashboard's action queue:
// connections disconnected or deauthorized (someone reconnects them, or
// deletes them), and active ones whose token enters the seven-day expiry
// window (someone renews their credentials).
func ActionItems(d Deps) *httpapi.ActionItems {
	return httpapi.NewActionItems("connections:read", func(ctx context.Context, p principal.Principal, now time.Time) ([]httpapi.ActionItem, error) {
		list, err := d.Queries.Connections(ctx, p.OrganizationID)
		if err != nil {
			return nil, err
		}
		var out []httpapi.ActionItem
		for _, c := range list {
			it := httpapi.ActionItem{ObjectID: c.ConnectionID, Path: "/connections/" + c.ConnectionID}
			switch {
			case c.Status == gateway.StatusDisconnected || c.Status == gateway.StatusDeauthorized:
				it.Kind, it.Severity, it.Resolve, it.At = "gateway.connection."+c.Status, "critical", "connections.credentials.set", c.UpdatedAt
				it.Title = "Connection " + c.Name + " (" + c.Provider + ") is " + c.Status
				it.Detail = "Calls through it fail: set new credentials, or delete it."
			case c.Status == gateway.StatusActive && c.TokenExpiresAt != nil && !c.TokenExpiresAt.After(now.Add(gateway.ExpiryWindow)):
				it.Kind, it.Severity, it.Resolve, it.At = "gateway.connection.expiring", "warning", "connections.credentials.set", c.TokenExpiresAt
				it.Title = "Connection " + c.Name + " (" + c.Provider + ") expires " + c.TokenExpiresAt.UTC().Format("2006-01-02 15:04 UTC")
				it.Detail = "Renew its credentials before the token expires."
			default:
				continue
			}
			out = append(out, it)
		}
		return out, nil
	})
}
