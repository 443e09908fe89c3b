package instagram

import (
	"context"
	"net/http"
	"net/url"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/graphapi"
)

// Lookup settles an unknown outcome. With the container id (Query.Pending)
// its status decides: PUBLISHED means the post exists (found among the
// recent media by caption; pending while the list lags), IN_PROGRESS
// pending, FINISHED or EXPIRED not published, ERROR failed. Without it the
// recent media are matched by caption.
func (c *Client) Lookup(ctx context.Context, conn social.Connection, q social.Query) (social.LookupResult, error) {
	if q.Pending != "" {
		status, err := c.containerStatus(ctx, conn, q.Pending)
		if err != nil {
			return social.LookupResult{}, err
		}
		switch status {
		case "IN_PROGRESS":
			return social.LookupResult{State: social.LookupPending}, nil
		case "FINISHED", "EXPIRED":
			return social.NotFound(), nil
		case "ERROR":
			return social.LookupResult{State: social.LookupFailed,
				Err: social.Fail(name, "lookup", outcome.Rejected, social.ReasonMediaInvalid, http.StatusOK)}, nil
		}
	}
	res, err := c.recent(ctx, conn, q)
	if err == nil && q.Pending != "" && res.State == social.LookupNotFound {
		// The container says published; the media list has not caught up.
		res.State = social.LookupPending
	}
	return res, err
}

func (c *Client) recent(ctx context.Context, conn social.Connection, q social.Query) (social.LookupResult, error) {
	var out struct {
		Data []struct {
			ID        string `json:"id"`
			Caption   string `json:"caption"`
			Permalink string `json:"permalink"`
			Timestamp string `json:"timestamp"`
		} `json:"data"`
	}
	req := social.Request{Op: "lookup", Method: http.MethodGet, Bearer: conn.BearerToken(),
		URL: c.graph("/"+url.PathEscape(conn.Account.ID)+"/media", url.Values{"fields": {"id,caption,permalink,timestamp"}, "limit": {"50"}})}
	if _, err := c.call.DoJSON(ctx, req, c.classify, &out); err != nil {
		return social.LookupResult{}, err
	}
	cands := make([]social.Candidate, 0, len(out.Data))
	for _, d := range out.Data {
		cands = append(cands, social.Candidate{ID: d.ID, URL: d.Permalink, Text: d.Caption, CreatedAt: graphapi.Time(d.Timestamp)})
	}
	if m, ok := social.Match(q, cands); ok {
		return social.Found(m), nil
	}
	return social.NotFound(), nil
}
