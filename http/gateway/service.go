// Package gateway is seed 001's usage gateway service: its actions are
// assembled from one function per area (reads.go, billing.go,
// organization.go, ai.go; connections, credentials, email and messages,
// payments and webhooks add theirs), each handler only decoding, calling the
// gateway's commands, client or queries, and encoding.
package gateway

import (
	"time"

	"github.com/gorilla/mux"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	httpapi "github.com/platform/backend/http"
	gatewayview "github.com/platform/backend/projections/gateway"
)

// AppID is the gateway's catalog app id: its permissions are
// gateway.<resource>:<action>.
const AppID = "gateway"

// HealthPath is seed 001's liveness route of the gateway.
const HealthPath = "/health"

// Deps are what the gateway's routes call.
type Deps struct {
	Commands *gatewaycmd.Handlers
	Client   *gatewaycmd.Client
	Queries  *gatewayview.Queries
	// Answers keep the answers of calls made with an Idempotency-Key
	// (idempotent.go).
	Answers *gatewaycmd.Answers
	// Now is the clock of the month-to-date views (nil: time.Now).
	Now func() time.Time
}

func (d Deps) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Area is one part of the service: its actions and extra routes.
type Area struct {
	Actions []httpapi.Action
	Routes  func(r *mux.Router)
}

// Service is the gateway service: every area's actions.
func Service(d Deps, more ...Area) httpapi.Service {
	areas := append([]Area{readArea(d), billingArea(d), organizationArea(d), aiArea(d), openAIArea(d), anthropicArea(d)}, more...)
	svc := httpapi.Service{AppID: AppID, Name: "gateway", HealthPath: HealthPath}
	var routes []func(*mux.Router)
	for _, a := range areas {
		for _, action := range a.Actions {
			// Every call action honours Idempotency-Key the one same way.
			if isCall(action) {
				action = idempotent(d.Answers, action)
			}
			svc.Actions = append(svc.Actions, action)
		}
		if a.Routes != nil {
			routes = append(routes, a.Routes)
		}
	}
	if len(routes) > 0 {
		svc.Routes = func(r *mux.Router) {
			for _, f := range routes {
				f(r)
			}
		}
	}
	return svc
}
