package openai

import (
	"context"

	"github.com/platform/backend/providers/ai"
)

type embeddingRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format"`
}

type embeddingResponse struct {
	Model string `json:"model"`
	Data  []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Usage *struct {
		PromptTokens int64 `json:"prompt_tokens"`
	} `json:"usage"`
}

// Embed runs POST /embeddings.
func (c *Client) Embed(ctx context.Context, req ai.EmbeddingRequest) (*ai.EmbeddingResponse, error) {
	if err := ai.Require(ai.ProtocolOpenAI, c.conn.Capabilities, ai.CapEmbeddings); err != nil {
		return nil, err
	}
	body := embeddingRequest{Model: ai.Pick(req.Model, c.models.Embedding), Input: req.Input,
		Dimensions: req.Dimensions, EncodingFormat: "float"}
	if body.Model == "" || len(req.Input) == 0 {
		return nil, ai.Invalid(ai.ProtocolOpenAI, ai.CapEmbeddings, "no model or no input")
	}
	var resp embeddingResponse
	meta, err := c.call.Do(ctx, c.request(ai.CapEmbeddings, "/embeddings", body), &resp)
	if err != nil {
		return nil, err
	}
	out := &ai.EmbeddingResponse{Vectors: make([][]float32, len(req.Input)), Model: ai.Pick(resp.Model, body.Model),
		RequestID: meta.RequestID}
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(out.Vectors) {
			return nil, c.call.Fault(ai.CapEmbeddings, meta, ai.ReasonMalformed)
		}
		out.Vectors[d.Index] = d.Embedding
	}
	for _, v := range out.Vectors {
		if v == nil {
			return nil, c.call.Fault(ai.CapEmbeddings, meta, "answer lacks a vector")
		}
	}
	if resp.Usage != nil {
		out.Usage.InputTokens = resp.Usage.PromptTokens
	}
	return out, nil
}
