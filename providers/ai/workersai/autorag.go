package workersai

import (
	"context"
	"net/url"
	"regexp"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

type ragRequest struct {
	Query          string          `json:"query"`
	MaxNumResults  int             `json:"max_num_results,omitempty"`
	RewriteQuery   *bool           `json:"rewrite_query,omitempty"`
	RankingOptions *rankingOptions `json:"ranking_options,omitempty"`
}

type rankingOptions struct {
	ScoreThreshold float64 `json:"score_threshold"`
}

type ragResult struct {
	SearchQuery string `json:"search_query"`
	Data        []struct {
		FileID     string         `json:"file_id"`
		Filename   string         `json:"filename"`
		Score      float64        `json:"score"`
		Attributes map[string]any `json:"attributes"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"data"`
	HasMore  bool   `json:"has_more"`
	NextPage string `json:"next_page"`
}

var instanceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// SearchRAG runs accounts/{id}/autorag/rags/{name}/search: retrieval only,
// no generated answer.
func (c *Client) SearchRAG(ctx context.Context, req ai.RAGSearchRequest) (*ai.RAGSearchResponse, error) {
	if err := ai.Require(ai.ProtocolWorkersAI, c.conn.Capabilities, ai.CapRAGSearch); err != nil {
		return nil, err
	}
	if !instanceName.MatchString(req.Instance) || req.Query == "" {
		return nil, ai.Invalid(ai.ProtocolWorkersAI, ai.CapRAGSearch, "no usable instance name or no query")
	}
	body := ragRequest{Query: req.Query, MaxNumResults: req.MaxResults, RewriteQuery: req.RewriteQuery}
	if req.ScoreThreshold != nil {
		body.RankingOptions = &rankingOptions{ScoreThreshold: *req.ScoreThreshold}
	}
	res, meta, err := do[ragResult](ctx, c, httpcall.Request{Capability: ai.CapRAGSearch,
		URL:    c.conn.BaseURL + "/accounts/" + c.account + "/autorag/rags/" + url.PathEscape(req.Instance) + "/search",
		Header: c.header(), JSON: body})
	if err != nil {
		return nil, err
	}
	out := &ai.RAGSearchResponse{SearchQuery: res.SearchQuery, HasMore: res.HasMore, NextPage: res.NextPage, RequestID: meta.RequestID}
	for _, d := range res.Data {
		r := ai.RAGResult{FileID: d.FileID, Filename: d.Filename, Score: d.Score, Attributes: d.Attributes}
		for _, part := range d.Content {
			if part.Type == "text" {
				r.Text += part.Text
			}
		}
		out.Results = append(out.Results, r)
	}
	return out, nil
}
