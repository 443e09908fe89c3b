package x

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/platform/backend/providers/social"
)

// Lookup reads the account's recent posts (GET /2/users/{id}/tweets from
// the attempt's start) and matches the query's text and thread parent.
func (c *Client) Lookup(ctx context.Context, conn social.Connection, q social.Query) (social.LookupResult, error) {
	params := url.Values{
		"max_results":  {"100"},
		"tweet.fields": {"created_at,referenced_tweets"},
		"exclude":      {"retweets"},
	}
	if from := q.From(); !from.IsZero() {
		params.Set("start_time", from.UTC().Format(time.RFC3339))
	}
	var out struct {
		Data []struct {
			ID         string    `json:"id"`
			Text       string    `json:"text"`
			CreatedAt  time.Time `json:"created_at"`
			Referenced []struct {
				Type string `json:"type"`
				ID   string `json:"id"`
			} `json:"referenced_tweets"`
		} `json:"data"`
	}
	req := social.Request{Op: "lookup", Method: http.MethodGet, Bearer: conn.BearerToken(),
		URL: c.cfg.APIBaseURL + "/2/users/" + url.PathEscape(conn.Account.ID) + "/tweets?" + params.Encode()}
	if _, err := c.call.DoJSON(ctx, req, classify, &out); err != nil {
		return social.LookupResult{}, err
	}
	cands := make([]social.Candidate, 0, len(out.Data))
	for _, t := range out.Data {
		cand := social.Candidate{ID: t.ID, URL: c.postURL(conn.Account.Handle, t.ID), Text: t.Text, CreatedAt: t.CreatedAt}
		for _, r := range t.Referenced {
			if r.Type == "replied_to" {
				cand.ReplyTo = r.ID
			}
		}
		cands = append(cands, cand)
	}
	if m, ok := social.Match(q, cands); ok {
		return social.Found(m), nil
	}
	return social.NotFound(), nil
}
