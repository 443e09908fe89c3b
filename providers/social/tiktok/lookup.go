package tiktok

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// Lookup settles an unknown outcome: with the publish_id its status
// decides (complete: found; processing: pending; failed: failed), without
// it the creator's recent videos are matched by caption.
func (c *Client) Lookup(ctx context.Context, conn social.Connection, q social.Query) (social.LookupResult, error) {
	if q.Pending != "" {
		st, err := c.status(ctx, conn, q.Pending)
		if err != nil {
			return social.LookupResult{}, err
		}
		switch st.Status {
		case "PUBLISH_COMPLETE":
			// Photo or video is not known here; TikTok redirects either.
			return social.LookupResult{State: social.LookupFound, Post: c.published(conn, q.Pending, st, false)}, nil
		case "FAILED":
			e := byCode("lookup", st.FailReason, "", http.StatusOK)
			e.Code = st.FailReason
			if e.Kind == outcome.ProviderFault {
				return social.NotFound(), nil // TikTok's own failure: nothing posted, a retry may post
			}
			return social.LookupResult{State: social.LookupFailed, Err: e}, nil
		}
		return social.LookupResult{State: social.LookupPending}, nil
	}
	var out struct {
		Data struct {
			Videos []struct {
				ID          string `json:"id"`
				Title       string `json:"title"`
				Description string `json:"video_description"`
				CreateTime  int64  `json:"create_time"`
				ShareURL    string `json:"share_url"`
			} `json:"videos"`
		} `json:"data"`
	}
	req := social.Request{Op: "lookup", Method: http.MethodPost, Bearer: conn.BearerToken(),
		URL:  c.cfg.APIBaseURL + "/v2/video/list/?" + url.Values{"fields": {"id,title,video_description,create_time,share_url"}}.Encode(),
		JSON: map[string]int{"max_count": 20}}
	if _, err := c.call.DoJSON(ctx, req, classify, &out); err != nil {
		return social.LookupResult{}, err
	}
	cands := make([]social.Candidate, 0, len(out.Data.Videos))
	for _, v := range out.Data.Videos {
		text := v.Description
		if text == "" {
			text = v.Title
		}
		u := v.ShareURL
		if u == "" {
			u = c.postURL(conn.Account.Handle, v.ID, false)
		}
		cands = append(cands, social.Candidate{ID: v.ID, URL: u, Text: text, CreatedAt: time.Unix(v.CreateTime, 0)})
	}
	if m, ok := social.Match(q, cands); ok {
		return social.Found(m), nil
	}
	return social.NotFound(), nil
}
