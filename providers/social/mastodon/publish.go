package mastodon

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/platform/backend/internal/retry"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

var visibilities = map[social.Visibility]string{
	social.VisibilityPublic:    "public",
	social.VisibilityUnlisted:  "unlisted",
	social.VisibilityFollowers: "private",
}

// status is Mastodon's Status entity, the parts we read.
type status struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	URI         string    `json:"uri"`
	Content     string    `json:"content"`
	InReplyToID *string   `json:"in_reply_to_id"`
	CreatedAt   time.Time `json:"created_at"`
}

func (s status) published() social.Published {
	u := s.URL
	if u == "" {
		u = s.URI
	}
	return social.Published{ID: s.ID, URL: u, CreatedAt: s.CreatedAt}
}

// Publish uploads the media, then posts the status with the attempt's
// Idempotency-Key.
func (c *Client) Publish(ctx context.Context, conn social.Connection, p social.Post) (social.Published, error) {
	caps := c.Info().Capabilities
	if err := social.CheckPost(name, caps, conn, p); err != nil {
		return social.Published{}, err
	}
	body := map[string]any{"status": social.TextWithLink(p), "visibility": visibilities[social.VisibilityOr(caps, p.Visibility)]}
	if p.ReplyTo != "" {
		body["in_reply_to_id"] = p.ReplyTo
	}
	var mediaIDs []string
	for _, m := range p.Media {
		id, err := c.upload(ctx, conn, m)
		if err != nil {
			return social.Published{}, err
		}
		mediaIDs = append(mediaIDs, id)
	}
	if len(mediaIDs) > 0 {
		body["media_ids"] = mediaIDs
	}
	header := http.Header{}
	if p.IdempotencyKey != "" {
		header.Set("Idempotency-Key", p.IdempotencyKey)
	}
	var out status
	req := social.Request{Op: "publish", Method: http.MethodPost, URL: c.cfg.InstanceURL + "/api/v1/statuses",
		Bearer: conn.BearerToken(), Header: header, JSON: body, Creates: true}
	a, err := c.call.DoJSON(ctx, req, classify, &out)
	if err != nil {
		return social.Published{}, err
	}
	if out.ID == "" {
		return social.Published{}, c.call.Malformed(req, a.Status)
	}
	return out.published(), nil
}

// upload sends one file (POST /api/v2/media) and waits until Mastodon has
// processed it (202, then GET /api/v1/media/{id} answering 206 until done).
func (c *Client) upload(ctx context.Context, conn social.Connection, m social.Media) (string, error) {
	data, err := c.call.ReadMedia(ctx, m)
	if err != nil {
		return "", err
	}
	var fields []social.Field
	if m.AltText != "" {
		fields = append(fields, social.Field{Name: "description", Value: m.AltText})
	}
	body, contentType, err := social.Multipart(fields, "file", social.FileName(m.ContentType), m.ContentType, data)
	if err != nil {
		return "", social.Rejection(name, "upload_media", social.ReasonMediaInvalid)
	}
	var out struct {
		ID  string  `json:"id"`
		URL *string `json:"url"`
	}
	req := social.Request{Op: "upload_media", Method: http.MethodPost, URL: c.cfg.InstanceURL + "/api/v2/media",
		Bearer: conn.BearerToken(), Body: body, ContentType: contentType}
	a, err := c.call.DoJSON(ctx, req, classify, &out)
	if err != nil {
		return "", err
	}
	if out.ID == "" {
		return "", c.call.Malformed(req, a.Status)
	}
	if a.Status == http.StatusAccepted || out.URL == nil {
		return out.ID, c.waitProcessed(ctx, conn, out.ID)
	}
	return out.ID, nil
}

func (c *Client) waitProcessed(ctx context.Context, conn social.Connection, id string) error {
	deadline := c.call.Now().Add(c.cfg.PollTimeout)
	for {
		req := social.Request{Op: "upload_media", Method: http.MethodGet, URL: c.cfg.InstanceURL + "/api/v1/media/" + url.PathEscape(id), Bearer: conn.BearerToken()}
		a, err := c.call.Do(ctx, req, classify)
		if err != nil {
			return err
		}
		if a.Status == http.StatusOK {
			return nil
		}
		if !c.call.Now().Add(c.cfg.PollInterval).Before(deadline) {
			return social.Fail(name, "upload_media", outcome.ProviderFault, social.ReasonProcessing, a.Status)
		}
		if !retry.Sleep(ctx, c.cfg.PollInterval) {
			return &social.Error{Network: name, Op: "upload_media", Kind: outcome.Canceled, Reason: social.ReasonCanceled, Sent: true}
		}
	}
}

// Lookup reads the account's latest statuses and matches the text and the
// thread parent.
func (c *Client) Lookup(ctx context.Context, conn social.Connection, q social.Query) (social.LookupResult, error) {
	var out []status
	req := social.Request{Op: "lookup", Method: http.MethodGet, Bearer: conn.BearerToken(),
		URL: c.cfg.InstanceURL + "/api/v1/accounts/" + url.PathEscape(conn.Account.ID) + "/statuses?limit=40&exclude_reblogs=true"}
	if _, err := c.call.DoJSON(ctx, req, classify, &out); err != nil {
		return social.LookupResult{}, err
	}
	cands := make([]social.Candidate, 0, len(out))
	for _, s := range out {
		cand := social.Candidate{ID: s.ID, URL: s.published().URL, Text: social.PlainText(s.Content), CreatedAt: s.CreatedAt}
		if s.InReplyToID != nil {
			cand.ReplyTo = *s.InReplyToID
		}
		cands = append(cands, cand)
	}
	if m, ok := social.Match(q, cands); ok {
		return social.Found(m), nil
	}
	return social.NotFound(), nil
}
