package publishing

import (
	"context"
	"net/http"

	"github.com/platform/backend/commands"
	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// MediaList is media.list's answer.
type MediaList struct {
	Media []domain.Media `json:"media"`
}

// ListMedia is media.list's input.
type ListMedia struct {
	BrandID string `json:"brandId"`
	Limit   int    `json:"limit"`
}

var mediaOpts = func(prefix string) []httpapi.OutputOption {
	return []httpapi.OutputOption{httpapi.EnumOf(prefix+"kind", "image", "video"), httpapi.EnumOf(prefix+"content_type", domain.MediaContentTypes()...)}
}

func (d Deps) mediaActions() []httpapi.Action {
	return []httpapi.Action{
		bearerOnly(httpapi.Query(httpapi.Action{
			Name: "media.list", Method: http.MethodGet, Path: "/api/media", Permission: "posts:read", ReadOnly: true,
			Summary: "The organization's media files, newest first", ReadModel: view.Name,
			OutputSchema: httpapi.OutputOf(MediaList{}, mediaOpts("media[].")...),
			InputSchema:  httpapi.Object(nil, map[string]string{"brandId": idSchema, "limit": limitSchema}),
		}, d.listMedia)),
		bearerOnly(httpapi.Command(httpapi.Action{
			Name: "media.upload", Method: http.MethodPost, Path: "/api/media/upload", Permission: "posts:write",
			InvalidStatus: http.StatusBadRequest, Problems: []int{http.StatusRequestEntityTooLarge},
			Summary: "A presigned URL for one direct upload to the object store, bound to the file's type and size; " +
				"over the limits: 413 (size) or 400 (type) before any byte is stored",
			OutputSchema: httpapi.OutputOf(pubcmd.UploadGrant{}, append(mediaOpts("media."), httpapi.EnumOf("method", "PUT", "POST"),
				httpapi.OpenObject("headers"), httpapi.OpenObject("fields"))...),
			InputSchema: httpapi.Object([]string{"filename", "contentType", "size"}, map[string]string{"brandId": idSchema,
				"filename": httpapi.LineSchema(1, text.MaxTitle), "contentType": enum(domain.MediaContentTypes()...),
				"size": `{"type":"integer","minimum":1,"maximum":10737418240}`}),
		}, d.upload)),
	}
}

func (d Deps) listMedia(ctx context.Context, p principal.Principal, in ListMedia) (MediaList, error) {
	list, err := d.Queries.Media(ctx, p.OrganizationID, in.BrandID, pageSize(in.Limit))
	return MediaList{Media: list}, err
}

func (d Deps) upload(ctx context.Context, m commands.Meta, in pubcmd.Upload) (commands.Result[pubcmd.UploadGrant], error) {
	if d.Media == nil {
		return commands.Result[pubcmd.UploadGrant]{}, errs.Unavailable("publishing: no object store is configured", nil)
	}
	return d.Media.Upload(ctx, m, in)
}
