package publishing

import (
	"context"
	"net/http"
	"time"

	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/publishing"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// ContentQuery is the input of the content-ops reads: the brand (from
// X-Brand-ID for a machine key) and a page size.
type ContentQuery struct {
	BrandID string `json:"brandId"`
	Limit   int    `json:"limit"`
}

// DailyQuery is content_ops.daily's input: how many days back.
type DailyQuery struct {
	BrandID string `json:"brandId"`
	Days    int    `json:"days"`
}

// Queue, Deck, Events and Daily answers.
type (
	Queue struct {
		Items []view.QueueItem `json:"items"`
	}
	Deck struct {
		Items []view.DeckItem `json:"items"`
	}
	Events struct {
		Events []view.ContentEvent `json:"events"`
	}
	Daily struct {
		Days []view.Day `json:"days"`
	}
	// ItemDetail is one content item: the post, its queue view and its
	// audit events.
	ItemDetail struct {
		Item   view.QueueItem      `json:"item"`
		Post   domain.Post         `json:"post"`
		Events []view.ContentEvent `json:"events"`
	}
)

var (
	contentQueryIn = httpapi.Object(nil, map[string]string{"brandId": idSchema, "limit": limitSchema})
	itemIn         = httpapi.Object([]string{"contentId"}, map[string]string{"contentId": idSchema, "brandId": idSchema})
	queueOut       = httpapi.OutputOf(Queue{}, queueItemOpt("items[].")...)
	deckOut        = httpapi.OutputOf(Deck{}, queueItemOpt("items[].")...)
	eventsOut      = httpapi.OutputOf(Events{})
	dailyOut       = httpapi.OutputOf(Daily{})
	itemOut        = httpapi.OutputOf(ItemDetail{}, append(queueItemOpt("item."), postOptions("post.")...)...)
)

func with(m map[string]string, extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func (d Deps) contentOpsActions() []httpapi.Action {
	item := map[string]string{"contentId": idSchema, "brandId": idSchema}
	return []httpapi.Action{
		machine(httpapi.Query(httpapi.Action{
			Name: "content_ops.queue", Method: http.MethodGet, Path: "/api/content-ops/queue", Permission: "calendar:read", ReadOnly: true,
			Summary:   "Actionable content items: approval state, publish status, times, failure details and supported safe actions",
			ReadModel: view.Name, OutputSchema: queueOut, InputSchema: contentQueryIn,
		}, d.queue)),
		machine(httpapi.Query(httpapi.Action{
			Name: "content_ops.daily", Method: http.MethodGet, Path: "/api/content-ops/daily", Permission: "analytics:read", ReadOnly: true,
			Summary:   "Per-day rollup of creation, approvals, scheduling, publishing and failures, bucketed by each activity's own time",
			ReadModel: view.Name, OutputSchema: dailyOut,
			InputSchema: httpapi.Object(nil, map[string]string{"brandId": idSchema, "days": `{"type":"integer","minimum":1,"maximum":366}`}),
		}, d.daily)),
		machine(httpapi.Query(httpapi.Action{
			Name: "content_ops.events", Method: http.MethodGet, Path: "/api/content-ops/events", Permission: "calendar:read", ReadOnly: true,
			Summary: "Content operations audit events, newest first", ReadModel: view.Name, OutputSchema: eventsOut, InputSchema: contentQueryIn,
		}, d.events)),
		machine(httpapi.Query(httpapi.Action{
			Name: "content_ops.deck", Method: http.MethodGet, Path: "/api/content-ops/deck", Permission: "calendar:read", ReadOnly: true,
			Summary: "Suggestion drafts awaiting approval, freshest first", ReadModel: view.Name, OutputSchema: deckOut, InputSchema: contentQueryIn,
		}, d.deck)),
		machine(httpapi.Query(httpapi.Action{
			Name: "content_ops.items.get", Method: http.MethodGet, Path: "/api/content-ops/items/{contentId}", Permission: "calendar:read",
			ReadOnly: true, Summary: "Full item detail: the post, its queue view and its audit events", ReadModel: view.Name,
			OutputSchema: itemOut, InputSchema: itemIn,
		}, d.item)),
		machine(httpapi.Command(httpapi.Action{
			Name: "content_ops.items.update", Method: http.MethodPatch, Path: "/api/content-ops/items/{contentId}", Permission: "calendar:write",
			Summary: "Safe edit of a draft's copy", OutputSchema: postOut,
			InputSchema: textOrMedia(httpapi.Object([]string{"contentId"}, with(item, map[string]string{"text": copySchema, "media": mediaSchema,
				"link": linkSchema, "thread": threadSchema}))),
		}, d.Commands.EditItem)),
		machine(httpapi.Command(httpapi.Action{
			Name: "content_ops.items.approve", Method: http.MethodPost, Path: "/api/content-ops/items/{contentId}/approve",
			Permission: "calendar:write", Summary: "Approve a suggestion draft", OutputSchema: postOut, InputSchema: itemIn,
		}, d.Commands.ApproveItem)),
		machine(httpapi.Command(httpapi.Action{
			Name: "content_ops.items.reject", Method: http.MethodPost, Path: "/api/content-ops/items/{contentId}/reject",
			Permission: "calendar:write", Summary: "Reject a suggestion draft, with an optional reason", OutputSchema: postOut,
			InputSchema: httpapi.Object([]string{"contentId"}, with(item, map[string]string{"reason": httpapi.TextSchema(0, 500)})),
		}, d.Commands.RejectItem)),
		machine(httpapi.Command(httpapi.Action{
			Name: "content_ops.items.reschedule", Method: http.MethodPost, Path: "/api/content-ops/items/{contentId}/reschedule",
			Permission: "calendar:write", Summary: "Reschedule a queued or failed post to a future time (failure fields cleared)",
			OutputSchema: postOut, InputSchema: httpapi.Object([]string{"contentId", "publishAt"}, with(item, map[string]string{"publishAt": dateTimeSchema})),
		}, d.Commands.RescheduleItem)),
		machine(httpapi.Command(httpapi.Action{
			Name: "content_ops.items.retry", Method: http.MethodPost, Path: "/api/content-ops/items/{contentId}/retry",
			Permission: "calendar:write", Summary: "Retry the failed targets of a post (never one with a platform post id)",
			OutputSchema: postOut, InputSchema: itemIn,
		}, d.Commands.RetryItem)),
	}
}

func pageSize(n int) int {
	if n == 0 {
		return 100
	}
	return n
}

func (d Deps) queue(ctx context.Context, p principal.Principal, in ContentQuery) (Queue, error) {
	items, err := d.Queries.Queue(ctx, p.OrganizationID, in.BrandID, pageSize(in.Limit))
	return Queue{Items: items}, err
}

func (d Deps) deck(ctx context.Context, p principal.Principal, in ContentQuery) (Deck, error) {
	items, err := d.Queries.Deck(ctx, p.OrganizationID, in.BrandID, d.Commands.Now(), pageSize(in.Limit))
	return Deck{Items: items}, err
}

func (d Deps) events(ctx context.Context, p principal.Principal, in ContentQuery) (Events, error) {
	list, err := d.Queries.Events(ctx, p.OrganizationID, in.BrandID, "", pageSize(in.Limit))
	return Events{Events: list}, err
}

func (d Deps) daily(ctx context.Context, p principal.Principal, in DailyQuery) (Daily, error) {
	days := in.Days
	if days == 0 {
		days = 30
	}
	since := d.Commands.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1-days)
	list, err := d.Queries.Daily(ctx, p.OrganizationID, in.BrandID, since)
	return Daily{Days: list}, err
}

func (d Deps) item(ctx context.Context, p principal.Principal, in pubcmd.ContentItem) (ItemDetail, error) {
	post, err := d.Queries.Post(ctx, p.OrganizationID, in.ContentID)
	if err != nil {
		return ItemDetail{}, err
	}
	if in.BrandID != "" && post.BrandID != in.BrandID {
		return ItemDetail{}, errs.NotFound("post")
	}
	events, err := d.Queries.Events(ctx, p.OrganizationID, "", in.ContentID, 200)
	return ItemDetail{Item: view.ItemOf(post), Post: post, Events: events}, err
}
