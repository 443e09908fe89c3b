package facebook

import (
	"context"
	"net/http"
	"net/url"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/graphapi"
)

// Publish posts to the page's feed as the page: POST /{page-id}/feed with
// message and link, or POST /{page-id}/photos with the image's URL (the
// photo's post_id is the post).
func (c *Client) Publish(ctx context.Context, conn social.Connection, p social.Post) (social.Published, error) {
	if err := social.CheckPost(name, c.Info().Capabilities, conn, p); err != nil {
		return social.Published{}, err
	}
	form := url.Values{"published": {"true"}}
	path := "/" + url.PathEscape(conn.Account.ID) + "/feed"
	if len(p.Media) > 0 {
		path = "/" + url.PathEscape(conn.Account.ID) + "/photos"
		form.Set("url", p.Media[0].URL)
		if alt := p.Media[0].AltText; alt != "" {
			form.Set("alt_text_custom", alt)
		}
		if text := social.TextWithLink(p); text != "" {
			form.Set("message", text)
		}
	} else {
		if p.Text != "" {
			form.Set("message", p.Text)
		}
		if p.Link != "" {
			form.Set("link", p.Link)
		}
	}
	var out struct {
		ID     string `json:"id"`
		PostID string `json:"post_id"`
	}
	req := social.Request{Op: "publish", Method: http.MethodPost, URL: c.graph(path, nil), Bearer: conn.BearerToken(), Form: form, Creates: true}
	a, err := c.call.DoJSON(ctx, req, c.classify, &out)
	if err != nil {
		return social.Published{}, err
	}
	id := out.ID
	if out.PostID != "" {
		id = out.PostID
	}
	if id == "" {
		return social.Published{}, c.call.Malformed(req, a.Status)
	}
	return social.Published{ID: id, URL: c.cfg.WebURL + "/" + id}, nil
}

// Lookup reads the page's feed since the attempt (GET /{page-id}/feed) and
// matches the message.
func (c *Client) Lookup(ctx context.Context, conn social.Connection, q social.Query) (social.LookupResult, error) {
	params := url.Values{"fields": {"id,message,created_time,permalink_url"}, "limit": {"50"}}
	if from := q.From(); !from.IsZero() {
		params.Set("since", social.FormatUnix(from))
	}
	var out struct {
		Data []struct {
			ID           string `json:"id"`
			Message      string `json:"message"`
			CreatedTime  string `json:"created_time"`
			PermalinkURL string `json:"permalink_url"`
		} `json:"data"`
	}
	req := social.Request{Op: "lookup", Method: http.MethodGet, Bearer: conn.BearerToken(),
		URL: c.graph("/"+url.PathEscape(conn.Account.ID)+"/feed", params)}
	if _, err := c.call.DoJSON(ctx, req, c.classify, &out); err != nil {
		return social.LookupResult{}, err
	}
	cands := make([]social.Candidate, 0, len(out.Data))
	for _, d := range out.Data {
		u := d.PermalinkURL
		if u == "" {
			u = c.cfg.WebURL + "/" + d.ID
		}
		cands = append(cands, social.Candidate{ID: d.ID, URL: u, Text: d.Message, CreatedAt: graphapi.Time(d.CreatedTime)})
	}
	if m, ok := social.Match(q, cands); ok {
		return social.Found(m), nil
	}
	return social.NotFound(), nil
}
