package studio

import (
	"context"
	"io"
	"net/url"
	"strconv"

	studiocmd "github.com/platform/backend/commands/studio"
	domain "github.com/platform/backend/domain/studio"
	httpapi "github.com/platform/backend/http"
)

// uploadTypes are the media types assets.upload takes.
func uploadTypes() []string {
	out := make([]string, 0, len(domain.AssetTypes))
	for t := range domain.AssetTypes {
		out = append(out, t)
	}
	return out
}

// PreviewPath is an asset's signed preview link (relative to the studio's
// base URL).
func PreviewPath(workspaceSlug, assetID string, pv studiocmd.Preview) string {
	q := url.Values{"token": {pv.Token}, "expiresAt": {strconv.FormatInt(pv.ExpiresAt.Unix(), 10)}}
	return "/api/workspaces/" + url.PathEscape(workspaceSlug) + "/assets/" + url.PathEscape(assetID) + "/preview?" + q.Encode()
}

func (d Deps) upload(ctx context.Context, c *httpapi.Call, in studiocmd.UploadAsset) (httpapi.Reply, error) {
	in.ContentType = c.MediaType
	return httpapi.FromResult(d.Commands.UploadAsset(ctx, c.Meta, c.Principal, in, c.Body))
}

// preview serves a previewed asset's bytes: the stored type, never sniffed,
// sandboxed, cached privately until the link expires.
func (d Deps) preview(ctx context.Context, _ *httpapi.Call, in studiocmd.OpenPreview) (httpapi.Reply, error) {
	obj, err := d.Commands.OpenPreview(ctx, in)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Reply{ContentType: obj.ContentType, Header: map[string][]string{
		"Content-Security-Policy": {"sandbox; default-src 'none'"}, "Cache-Control": {"private, max-age=300"},
		"Content-Disposition": {"inline"}},
		Content: func(w io.Writer) error {
			defer obj.Body.Close()
			_, err := io.Copy(w, obj.Body)
			return err
		}}, nil
}
