package instagram

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/platform/backend/internal/retry"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// Publish makes the container(s), waits until Instagram has fetched and
// processed the media, then publishes. Only media_publish makes the post;
// its unknown outcome carries the container id for Lookup.
func (c *Client) Publish(ctx context.Context, conn social.Connection, p social.Post) (social.Published, error) {
	if err := social.CheckPost(name, c.Info().Capabilities, conn, p); err != nil {
		return social.Published{}, err
	}
	container, err := c.resume(ctx, conn, p.Resume)
	if err != nil {
		return social.Published{}, err
	}
	if container == "" {
		if container, err = c.containerFor(ctx, conn, p); err != nil {
			return social.Published{}, err
		}
	}
	var out struct {
		ID string `json:"id"`
	}
	req := social.Request{Op: "publish", Method: http.MethodPost, URL: c.graph("/"+url.PathEscape(conn.Account.ID)+"/media_publish", nil),
		Bearer: conn.BearerToken(), Form: url.Values{"creation_id": {container}}, Creates: true}
	a, err := c.call.DoJSON(ctx, req, c.classify, &out)
	if err == nil && out.ID == "" {
		err = c.call.Malformed(req, a.Status)
	}
	if err != nil {
		if e, ok := social.AsError(err); ok && e.Kind == social.KindOutcomeUnknown {
			e.Pending = container
		}
		return social.Published{}, err
	}
	return social.Published{ID: out.ID, URL: c.permalink(ctx, conn, out.ID)}, nil
}

// resume answers the container of an earlier attempt when it can still be
// published ("" when a new one is needed). Instagram publishes a container
// once, so publishing the same one again cannot post twice: a late first
// publish makes this one fail instead.
func (c *Client) resume(ctx context.Context, conn social.Connection, container string) (string, error) {
	if container == "" {
		return "", nil
	}
	status, err := c.containerStatus(ctx, conn, container)
	if err != nil {
		return "", err
	}
	switch status {
	case "FINISHED":
		return container, nil
	case "IN_PROGRESS":
		return container, c.waitFinished(ctx, conn, container)
	case "PUBLISHED":
		e := social.Fail(name, "publish", outcome.Rejected, social.ReasonDuplicate, http.StatusOK)
		e.Pending = container
		return "", e
	}
	return "", nil // expired or failed: start again
}

// containerFor makes the container a post publishes: one item, or a
// carousel of finished children.
func (c *Client) containerFor(ctx context.Context, conn social.Connection, p social.Post) (string, error) {
	caption := social.TextWithLink(p)
	if len(p.Media) == 1 {
		form := itemForm(p.Media[0], false)
		if caption != "" {
			form.Set("caption", caption)
		}
		return c.createContainer(ctx, conn, form)
	}
	children := make([]string, 0, len(p.Media))
	for _, m := range p.Media {
		id, err := c.createContainer(ctx, conn, itemForm(m, true))
		if err != nil {
			return "", err
		}
		children = append(children, id)
	}
	form := url.Values{"media_type": {"CAROUSEL"}, "children": {strings.Join(children, ",")}}
	if caption != "" {
		form.Set("caption", caption)
	}
	return c.createContainer(ctx, conn, form)
}

// itemForm is one media item's container parameters: an image by URL, or a
// video (a reel alone, VIDEO inside a carousel).
func itemForm(m social.Media, carouselItem bool) url.Values {
	form := url.Values{}
	if m.Kind == social.MediaVideo {
		form.Set("video_url", m.URL)
		form.Set("media_type", "REELS")
		if carouselItem {
			form.Set("media_type", "VIDEO")
		}
	} else {
		form.Set("image_url", m.URL)
		if m.AltText != "" {
			form.Set("alt_text", m.AltText)
		}
	}
	if carouselItem {
		form.Set("is_carousel_item", "true")
	}
	return form
}

// createContainer makes one container and waits until it is FINISHED.
func (c *Client) createContainer(ctx context.Context, conn social.Connection, form url.Values) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	req := social.Request{Op: "upload_media", Method: http.MethodPost, URL: c.graph("/"+url.PathEscape(conn.Account.ID)+"/media", nil),
		Bearer: conn.BearerToken(), Form: form}
	a, err := c.call.DoJSON(ctx, req, c.classify, &out)
	if err != nil {
		return "", err
	}
	if out.ID == "" {
		return "", c.call.Malformed(req, a.Status)
	}
	return out.ID, c.waitFinished(ctx, conn, out.ID)
}

// waitFinished polls a container until Instagram has processed it. A
// container still processing when the budget ends is a provider fault
// naming it (nothing was posted; a retry makes a new one).
func (c *Client) waitFinished(ctx context.Context, conn social.Connection, id string) error {
	deadline := c.call.Now().Add(c.cfg.PollTimeout)
	for {
		status, err := c.containerStatus(ctx, conn, id)
		if err != nil {
			return err
		}
		switch status {
		case "FINISHED", "PUBLISHED":
			return nil
		case "ERROR":
			e := social.Fail(name, "upload_media", outcome.Rejected, social.ReasonMediaInvalid, http.StatusOK)
			e.Pending = id
			return e
		case "EXPIRED":
			return social.Fail(name, "upload_media", outcome.ProviderFault, "container_expired", http.StatusOK)
		}
		if !c.call.Now().Add(c.cfg.PollInterval).Before(deadline) {
			e := social.Fail(name, "upload_media", outcome.ProviderFault, social.ReasonProcessing, http.StatusOK)
			e.Pending = id
			return e
		}
		if !retry.Sleep(ctx, c.cfg.PollInterval) {
			return &social.Error{Network: name, Op: "upload_media", Kind: outcome.Canceled, Reason: social.ReasonCanceled, Sent: true}
		}
	}
}

// containerStatus reads a container's status_code: IN_PROGRESS, FINISHED,
// PUBLISHED, ERROR or EXPIRED.
func (c *Client) containerStatus(ctx context.Context, conn social.Connection, id string) (string, error) {
	var out struct {
		StatusCode string `json:"status_code"`
	}
	req := social.Request{Op: "status", Method: http.MethodGet, Bearer: conn.BearerToken(),
		URL: c.graph("/"+url.PathEscape(id), url.Values{"fields": {"status_code,status"}})}
	a, err := c.call.DoJSON(ctx, req, c.classify, &out)
	if err != nil {
		return "", err
	}
	if out.StatusCode == "" {
		return "", c.call.Malformed(req, a.Status)
	}
	return out.StatusCode, nil
}

// permalink is the post's URL; a failure to read it does not undo the
// post, so it answers "" then.
func (c *Client) permalink(ctx context.Context, conn social.Connection, mediaID string) string {
	var out struct {
		Permalink string `json:"permalink"`
	}
	req := social.Request{Op: "lookup", Method: http.MethodGet, Bearer: conn.BearerToken(),
		URL: c.graph("/"+url.PathEscape(mediaID), url.Values{"fields": {"permalink"}})}
	if _, err := c.call.DoJSON(ctx, req, c.classify, &out); err != nil {
		return ""
	}
	return out.Permalink
}
