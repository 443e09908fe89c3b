package publishing

import (
	"context"

	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// Widget is publishing's dashboard tile: the caller's organization's posts
// scheduled, with a failed target, and awaiting review. Its permission is
// seed 002's publishing scope dashboard.read (dashboard:read in the
// catalog's syntax), the scope the seed gives publishing's keys for the
// dashboard.
func Widget(d Deps) *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "Publishing", Permission: "dashboard:read", ReadModel: view.Name,
		Summary: "Posts of the caller's organization for the dashboard grid: scheduled, with a failed target, awaiting review"},
		func(ctx context.Context, p principal.Principal) (view.PostCounts, error) {
			return d.Queries.PostCounts(ctx, p.OrganizationID)
		})
}
