package openai

import (
	"context"
	"encoding/base64"
	"net/http"

	"github.com/platform/backend/providers/ai"
)

type imageRequest struct {
	Model  string `json:"model"`
	Prompt string `json:"prompt"`
	N      int    `json:"n,omitempty"`
	Size   string `json:"size,omitempty"`
}

type imageResponse struct {
	Data []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
	Usage *struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
}

// GenerateImage runs POST /images/generations. gpt-image models answer
// base64 (and token usage); older models may answer URLs.
func (c *Client) GenerateImage(ctx context.Context, req ai.ImageRequest) (*ai.ImageResponse, error) {
	if err := ai.Require(ai.ProtocolOpenAI, c.conn.Capabilities, ai.CapImageGeneration); err != nil {
		return nil, err
	}
	body := imageRequest{Model: ai.Pick(req.Model, c.models.Image), Prompt: req.Prompt, N: req.N, Size: req.Size}
	if body.Model == "" || req.Prompt == "" {
		return nil, ai.Invalid(ai.ProtocolOpenAI, ai.CapImageGeneration, "no model or no prompt")
	}
	var resp imageResponse
	meta, err := c.call.Do(ctx, c.request(ai.CapImageGeneration, "/images/generations", body), &resp)
	if err != nil {
		return nil, err
	}
	out := &ai.ImageResponse{Model: body.Model, RequestID: meta.RequestID}
	for _, d := range resp.Data {
		img := ai.GeneratedImage{URL: d.URL, RevisedPrompt: d.RevisedPrompt}
		if d.B64JSON != "" {
			data, err := base64.StdEncoding.DecodeString(d.B64JSON)
			if err != nil {
				return nil, c.call.Fault(ai.CapImageGeneration, meta, ai.ReasonMalformed)
			}
			img.Data, img.MIMEType = data, http.DetectContentType(data)
		}
		out.Images = append(out.Images, img)
	}
	out.Usage.Images = len(out.Images)
	if resp.Usage != nil {
		out.Usage.InputTokens, out.Usage.OutputTokens = resp.Usage.InputTokens, resp.Usage.OutputTokens
	}
	return out, nil
}
