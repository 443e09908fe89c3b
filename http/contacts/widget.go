package contacts

import (
	"context"

	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
	contactsview "github.com/platform/backend/projections/contacts"
)

// Widget is the contacts' dashboard tile: the caller's organization's live
// contacts, those added this week (since Monday 00:00 UTC) and the count
// per stage of its pipeline. The seed names no widget permission for the
// contacts API: the tile shows contacts, so it needs contacts:read.
func Widget(d Deps) *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "Contacts", Permission: read, ReadModel: contactsview.Name,
		Summary: "Contacts of the caller's organization for the dashboard grid: how many, new this week (since Monday 00:00 UTC), per stage"},
		func(ctx context.Context, p principal.Principal) (contactsview.Summary, error) {
			return d.Queries.Summary(ctx, p.OrganizationID)
		})
}
