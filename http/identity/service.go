package identity

import (
	"log/slog"
	"net/http"

	"github.com/gorilla/mux"

	identitycmd "github.com/platform/backend/commands/identity"
	httpapi "github.com/platform/backend/http"
	identityview "github.com/platform/backend/projections/identity"
)

// AccountsDeps are what the accounts and sessions half of the identity
// service calls.
type AccountsDeps struct {
	Commands *identitycmd.Handlers
	Accounts *identityview.Queries
	Web      SessionWeb
	Log      *slog.Logger
}

// Part is one half of the identity service: its actions and its
// plain routes. The service is composed from parts so that each half lives
// in its own files (accounts.go, sessions.go; the access half in access.go,
// recovery.go and security.go).
type Part struct {
	Actions []httpapi.Action
	Routes  func(r *mux.Router)
	Exact   map[string]http.Handler // httpapi.Service.Exact
}

// AppID is the identity service's app id (seed 001's prefix).
const AppID = "app_platform_auth"

// Service is seed 001's identity service: accounts and sessions, the
// health route and /validate (added by the app with the validator), plus the
// parts given (the access half, API keys).
func Service(d AccountsDeps, parts ...Part) httpapi.Service {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	all := append([]Part{accountActions(d), sessionActions(d)}, parts...)
	svc := httpapi.Service{Name: "identity", AppID: AppID}
	var routes []func(*mux.Router)
	for _, p := range all {
		svc.Actions = append(svc.Actions, p.Actions...)
		if p.Routes != nil {
			routes = append(routes, p.Routes)
		}
		for path, h := range p.Exact {
			if svc.Exact == nil {
				svc.Exact = map[string]http.Handler{}
			}
			svc.Exact[path] = h
		}
	}
	svc.Actions = withOutputs(svc.Actions, identityOutputs)
	svc.Routes = func(r *mux.Router) {
		for _, f := range routes {
			f(r)
		}
	}
	return svc
}
