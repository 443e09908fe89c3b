package linkedin

import (
	"context"
	"net/http"

	"github.com/platform/backend/providers/social"
)

type postRequest struct {
	Author                    string       `json:"author"`
	Commentary                string       `json:"commentary"`
	Visibility                string       `json:"visibility"`
	Distribution              distribution `json:"distribution"`
	Content                   *postContent `json:"content,omitempty"`
	LifecycleState            string       `json:"lifecycleState"`
	IsReshareDisabledByAuthor bool         `json:"isReshareDisabledByAuthor"`
}

type distribution struct {
	FeedDistribution               string `json:"feedDistribution"`
	TargetEntities                 []any  `json:"targetEntities"`
	ThirdPartyDistributionChannels []any  `json:"thirdPartyDistributionChannels"`
}

type postContent struct {
	Media   *postMedia   `json:"media,omitempty"`
	Article *postArticle `json:"article,omitempty"`
}

type postMedia struct {
	ID      string `json:"id"`
	AltText string `json:"altText,omitempty"`
}

type postArticle struct {
	Source string `json:"source"`
	Title  string `json:"title"`
}

var visibilities = map[social.Visibility]string{
	social.VisibilityPublic:    "PUBLIC",
	social.VisibilityFollowers: "CONNECTIONS",
}

// Publish uploads the image if any, then creates the post; a link without
// an image becomes an article.
func (c *Client) Publish(ctx context.Context, conn social.Connection, p social.Post) (social.Published, error) {
	caps := c.Info().Capabilities
	if err := social.CheckPost(name, caps, conn, p); err != nil {
		return social.Published{}, err
	}
	body := postRequest{
		Author:         conn.Account.ID,
		Commentary:     escape(p.Text),
		Visibility:     visibilities[social.VisibilityOr(caps, p.Visibility)],
		Distribution:   distribution{FeedDistribution: "MAIN_FEED", TargetEntities: []any{}, ThirdPartyDistributionChannels: []any{}},
		LifecycleState: "PUBLISHED",
	}
	switch {
	case len(p.Media) > 0:
		urn, err := c.upload(ctx, conn, p.Media[0])
		if err != nil {
			return social.Published{}, err
		}
		body.Content = &postContent{Media: &postMedia{ID: urn, AltText: p.Media[0].AltText}}
		body.Commentary = escape(social.TextWithLink(p))
	case p.Link != "":
		title := p.Title
		if title == "" {
			title = p.Link
		}
		body.Content = &postContent{Article: &postArticle{Source: p.Link, Title: title}}
	}
	req := social.Request{Op: "publish", Method: http.MethodPost, URL: c.cfg.APIBaseURL + "/rest/posts",
		Bearer: conn.BearerToken(), Header: c.restli(), JSON: body, Creates: true}
	a, err := c.call.Do(ctx, req, c.classify)
	if err != nil {
		return social.Published{}, err
	}
	urn := a.Header.Get("X-Restli-Id")
	if urn == "" {
		return social.Published{}, c.call.Malformed(req, a.Status)
	}
	return social.Published{ID: urn, URL: c.postURL(urn)}, nil
}

// upload registers an image (Images API initializeUpload), PUTs its bytes
// to the upload URL LinkedIn answered, and answers the image URN.
func (c *Client) upload(ctx context.Context, conn social.Connection, m social.Media) (string, error) {
	data, err := c.call.ReadMedia(ctx, m)
	if err != nil {
		return "", err
	}
	var out struct {
		Value struct {
			UploadURL string `json:"uploadUrl"`
			Image     string `json:"image"`
		} `json:"value"`
	}
	register := map[string]any{"initializeUploadRequest": map[string]string{"owner": conn.Account.ID}}
	req := social.Request{Op: "upload_media", Method: http.MethodPost, URL: c.cfg.APIBaseURL + "/rest/images?action=initializeUpload",
		Bearer: conn.BearerToken(), Header: c.restli(), JSON: register}
	a, err := c.call.DoJSON(ctx, req, c.classify, &out)
	if err != nil {
		return "", err
	}
	if out.Value.UploadURL == "" || out.Value.Image == "" {
		return "", c.call.Malformed(req, a.Status)
	}
	put := social.Request{Op: "upload_media", Method: http.MethodPut, URL: out.Value.UploadURL,
		Bearer: conn.BearerToken(), Body: data, ContentType: "application/octet-stream"}
	if _, err := c.call.Do(ctx, put, c.classify); err != nil {
		return "", err
	}
	return out.Value.Image, nil
}
