package linkedin

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/platform/backend/providers/social"
)

// Lookup lists the author's latest posts (GET /rest/posts?q=author, newest
// first) and matches the commentary. It needs r_member_social; without it
// LinkedIn answers 403 (Unauthorized, scope_missing) and the caller may
// rely on the duplicate rule instead: a retry of the same commentary is
// refused with Error.DuplicateOf naming the post that exists.
func (c *Client) Lookup(ctx context.Context, conn social.Connection, q social.Query) (social.LookupResult, error) {
	params := url.Values{"q": {"author"}, "author": {conn.Account.ID}, "count": {"50"}, "sortBy": {"LAST_MODIFIED"}}
	var out struct {
		Elements []struct {
			ID             string `json:"id"`
			Commentary     string `json:"commentary"`
			CreatedAt      int64  `json:"createdAt"`
			LifecycleState string `json:"lifecycleState"`
		} `json:"elements"`
	}
	req := social.Request{Op: "lookup", Method: http.MethodGet, URL: c.cfg.APIBaseURL + "/rest/posts?" + params.Encode(),
		Bearer: conn.BearerToken(), Header: c.restli()}
	if _, err := c.call.DoJSON(ctx, req, c.classify, &out); err != nil {
		return social.LookupResult{}, err
	}
	cands := make([]social.Candidate, 0, len(out.Elements))
	for _, e := range out.Elements {
		if e.LifecycleState != "" && e.LifecycleState != "PUBLISHED" {
			continue
		}
		cands = append(cands, social.Candidate{ID: e.ID, URL: c.postURL(e.ID), Text: unescape(e.Commentary), CreatedAt: time.UnixMilli(e.CreatedAt)})
	}
	if m, ok := social.Match(q, cands); ok {
		return social.Found(m), nil
	}
	return social.NotFound(), nil
}
