package publishing

import (
	"context"
	"net/http"

	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/publishing"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// ListPosts is posts.list's input.
type ListPosts struct {
	BrandID  string `json:"brandId"`
	ThreadID string `json:"threadId"`
	Status   string `json:"status"`
	Limit    int    `json:"limit"`
}

// PostList is posts.list's answer.
type PostList struct {
	Posts []domain.Post `json:"posts"`
}

// GetPost is posts.get's input.
type GetPost struct {
	PostID string `json:"postId"`
}

func postWriteSchema(required []string, pathID bool) map[string]string {
	m := map[string]string{"text": copySchema, "media": mediaSchema, "link": linkSchema, "thread": threadSchema,
		"targets": targetsSchema, "publishAt": dateTimeSchema, "status": enum(domain.StateDraft, domain.StateScheduled)}
	if pathID {
		m["postId"] = idSchema
	} else {
		m["brandId"] = idSchema
	}
	return m
}

func (d Deps) postActions() []httpapi.Action {
	return []httpapi.Action{
		bearerOnly(httpapi.Query(httpapi.Action{
			Name: "posts.list", Method: http.MethodGet, Path: "/api/posts", Permission: "posts:read", ReadOnly: true,
			Summary: "List posts, newest first; threadId lists a thread", ReadModel: view.Name, OutputSchema: postListOut,
			InputSchema: httpapi.Object(nil, map[string]string{"brandId": idSchema, "threadId": idSchema,
				"status": enum(postStatuses...), "limit": limitSchema}),
		}, d.listPosts)),
		bearerOnly(httpapi.Command(httpapi.Action{
			Name: "posts.create", Method: http.MethodPost, Path: "/api/posts", Permission: "posts:write",
			SuccessStatus: http.StatusCreated, InvalidStatus: http.StatusBadRequest, OutputSchema: postOut,
			Summary:     "Create a post (draft, or scheduled at publishAt) for one or more network targets; thread items follow it in order",
			InputSchema: scheduledNeedsTime(textOrMedia(httpapi.Object([]string{"brandId", "targets"}, postWriteSchema(nil, false)))),
		}, d.Commands.CreatePost)),
		bearerOnly(httpapi.Query(httpapi.Action{
			Name: "posts.get", Method: http.MethodGet, Path: "/api/posts/{postId}", Permission: "posts:read", ReadOnly: true,
			Summary: "A post with each target's state", ReadModel: view.Name, OutputSchema: postOut,
			InputSchema: httpapi.Object([]string{"postId"}, map[string]string{"postId": idSchema}),
		}, d.getPost)),
		bearerOnly(httpapi.Command(httpapi.Action{
			Name: "posts.update", Method: http.MethodPut, Path: "/api/posts/{postId}", Permission: "posts:write", OutputSchema: postOut,
			Summary:     "Edit a post not yet on any network; status draft reverts it (schedule cleared); explicit target accounts and pages are kept",
			InputSchema: httpapi.Object([]string{"postId"}, postWriteSchema(nil, true)),
		}, d.Commands.UpdatePost)),
		bearerOnly(httpapi.Command(httpapi.Action{
			Name: "posts.delete", Method: http.MethodDelete, Path: "/api/posts/{postId}", Permission: "posts:write", Destructive: true,
			SuccessStatus: http.StatusNoContent, OutputSchema: postOut, Summary: "Delete a post (what networks have stays there)",
			InputSchema: httpapi.Object([]string{"postId"}, map[string]string{"postId": idSchema}),
		}, d.Commands.DeletePost)),
	}
}

func (d Deps) listPosts(ctx context.Context, p principal.Principal, in ListPosts) (PostList, error) {
	posts, err := d.Queries.Posts(ctx, p.OrganizationID, view.PostFilter{BrandID: in.BrandID, ThreadID: in.ThreadID, Status: in.Status, Limit: in.Limit})
	return PostList{Posts: posts}, err
}

func (d Deps) getPost(ctx context.Context, p principal.Principal, in GetPost) (domain.Post, error) {
	return d.Queries.Post(ctx, p.OrganizationID, in.PostID)
}

var _ = pubcmd.CreatePost{}
