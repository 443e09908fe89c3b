// Package publishing is seed 002's social publishing API: posts, content
// operations, brands, integrations, media, trends and seeds, AI images and
// suggestions, and its health routes.
package publishing

import (
	"context"
	"log/slog"

	"github.com/gorilla/mux"

	pubcmd "github.com/platform/backend/commands/publishing"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// Deps are what the publishing routes call.
type Deps struct {
	Commands *pubcmd.Handlers
	Queries  *view.Queries
	Networks *pubcmd.Networks
	// Integrations start and finish OAuth connections.
	Integrations *pubcmd.Integrations
	// Media grants presigned uploads (nil: media uploads answer 503).
	Media *pubcmd.MediaLibrary
	// Studio generates images and suggestions through the gateway.
	Studio *pubcmd.Studio
	// Health reports the dependency checks (GET /health).
	Health func(ctx context.Context) (int, any)
	// Ready reports readiness (GET /readyz): 200 or 503.
	Ready func(ctx context.Context) (int, any)
	Log   *slog.Logger
}

// Service is the publishing API on its own listener.
func Service(d Deps) httpapi.Service {
	var actions []httpapi.Action
	for _, area := range [][]httpapi.Action{d.postActions(), d.contentOpsActions(), d.brandActions(), d.integrationActions(),
		d.mediaActions(), d.studioActions()} {
		actions = append(actions, area...)
	}
	return httpapi.Service{
		AppID: "publishing", Name: "publishing", Actions: actions, HealthPath: "/health", Health: d.Health,
		Routes: func(r *mux.Router) { d.probeRoutes(r); d.callbackRoute(r) },
	}
}
