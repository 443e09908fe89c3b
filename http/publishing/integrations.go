package publishing

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/platform/backend/commands"
	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/publishing"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// IntegrationList is integrations.list's answer.
type IntegrationList struct {
	Integrations []pubcmd.Integration `json:"integrations"`
}

var integrationStatuses = []string{pubcmd.ReadinessProduction, pubcmd.ReadinessSandbox, pubcmd.ReadinessSetup, pubcmd.ReadinessPlanned}

func (d Deps) integrationActions() []httpapi.Action {
	return []httpapi.Action{
		bearerOnly(httpapi.NoStore(httpapi.Perform(httpapi.Action{
			Name: "integrations.connect", Method: http.MethodPost, Path: "/api/integrations/{platform}/connect", Permission: "accounts:write",
			Summary:      "Start the OAuth 2.0 flow (PKCE, state) that connects a network account to a brand; 409 before any redirect for a provider that cannot be connected",
			OutputSchema: httpapi.OutputOf(pubcmd.ConnectStarted{}, httpapi.FormatOf("authorization_url", "uri")),
			InputSchema: httpapi.Object([]string{"platform", "brandId"}, map[string]string{"platform": enum(domain.Networks...),
				"brandId": idSchema}),
		}, d.connect))),
		bearerOnly(httpapi.Query(httpapi.Action{
			Name: "integrations.list", Method: http.MethodGet, Path: "/api/integrations", Permission: "accounts:read", ReadOnly: true,
			Summary:   "Every provider (production-ready, sandbox-only, setup-required or planned) with the brands' connected accounts",
			ReadModel: view.Name, OutputSchema: httpapi.OutputOf(IntegrationList{}, httpapi.EnumOf("integrations[].status", integrationStatuses...),
				httpapi.EnumOf("integrations[].network", domain.Networks...)),
		}, d.listIntegrations)),
	}
}

func (d Deps) connect(ctx context.Context, m commands.Meta, _ principal.Principal, in pubcmd.Connect) (pubcmd.ConnectStarted, error) {
	return d.Integrations.Connect(ctx, m, in)
}

func (d Deps) listIntegrations(ctx context.Context, p principal.Principal, _ struct{}) (IntegrationList, error) {
	brands, err := d.Queries.Brands(ctx, p.OrganizationID)
	if err != nil {
		return IntegrationList{}, err
	}
	return IntegrationList{Integrations: pubcmd.IntegrationsOf(brands, d.Networks)}, nil
}

// callbackRoute is where a network sends the browser back: public (the
// state names the attempt and is spent once), answered as JSON, its invalid
// input 400 (the kernel's checks of its parameters too), and limited per
// client address as every inbound route is.
func (d Deps) callbackRoute(r *mux.Router) {
	r.Handle("/api/integrations/{platform}/callback", httpapi.Inbound(httpapi.InvalidInputStatus(http.StatusBadRequest,
		http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			q := req.URL.Query()
			res, err := d.Integrations.Callback(req.Context(), pubcmd.Callback{Platform: mux.Vars(req)["platform"], Code: q.Get("code"),
				State: q.Get("state"), Error: q.Get("error")})
			if err != nil {
				httpapi.WriteError(w, req, d.Log, err)
				return
			}
			w.Header().Set("Cache-Control", "no-store")
			httpapi.WriteJSON(w, http.StatusOK, res)
		})))).Methods(http.MethodGet)
}
