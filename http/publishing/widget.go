package publishing

import (
	"context"
	"time"

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

// actionItemsLimit bounds the items of each reason one read lists.
const actionItemsLimit = 50

// ActionItems are publishing's entries in the dashboard's action queue:
// suggestions awaiting review (approved or rejected in the content queue)
// and posts whose publication is unconfirmed (someone checks the network;
// the target is reconciled before any retry).
func ActionItems(d Deps) *httpapi.ActionItems {
	return httpapi.NewActionItems("posts:read", func(ctx context.Context, p principal.Principal, _ time.Time) ([]httpapi.ActionItem, error) {
		posts, err := d.Queries.NeedingPerson(ctx, p.OrganizationID, actionItemsLimit)
		if err != nil {
			return nil, err
		}
		out := make([]httpapi.ActionItem, 0, len(posts))
		for _, n := range posts {
			at := n.Since
			it := httpapi.ActionItem{Kind: "publishing.post." + n.Reason, ObjectID: n.PostID, At: &at}
			if n.Reason == "awaiting_review" {
				it.Title, it.Severity, it.Resolve = "A suggested post awaits review", "warning", "content_ops.items.approve"
				it.Detail = "Approve or reject it in the content queue before it can be scheduled."
				it.Path = "/content-ops/items/" + n.PostID
			} else {
				it.Title, it.Severity, it.Resolve = "A post's publication is unconfirmed", "critical", "posts.get"
				it.Detail = "The network took the post but never answered: check whether it is live before anything is retried."
				it.Path = "/posts/" + n.PostID
			}
			out = append(out, it)
		}
		return out, nil
	})
}
