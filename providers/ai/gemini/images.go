package gemini

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/platform/backend/providers/ai"
)

// aspectRatios are the ratios Gemini image models accept.
var aspectRatios = map[string]bool{"1:1": true, "2:3": true, "3:2": true, "3:4": true, "4:3": true,
	"4:5": true, "5:4": true, "9:16": true, "16:9": true, "21:9": true}

// GenerateImage runs generateContent on an image model with the IMAGE
// response modality; the images come back as inlineData parts. One image
// per call: the gateway calls again for more.
func (c *Client) GenerateImage(ctx context.Context, req ai.ImageRequest) (*ai.ImageResponse, error) {
	if err := ai.Require(ai.ProtocolGemini, c.conn.Capabilities, ai.CapImageGeneration); err != nil {
		return nil, err
	}
	model := ai.Pick(req.Model, c.models.Image)
	if model == "" || req.Prompt == "" || req.N > 1 {
		return nil, ai.Invalid(ai.ProtocolGemini, ai.CapImageGeneration, "no model, no prompt, or more than one image")
	}
	body := generateRequest{
		Contents:         []content{{Role: "user", Parts: []part{{Text: req.Prompt}}}},
		GenerationConfig: &generationConfig{ResponseModalities: []string{"TEXT", "IMAGE"}},
	}
	if ratio := aspectRatio(req.Size); ratio != "" {
		body.GenerationConfig.ImageConfig = &imageConfig{AspectRatio: ratio}
	}
	var resp generateResponse
	meta, err := c.call.Do(ctx, c.request(ai.CapImageGeneration, model, "generateContent", body), &resp)
	if err != nil {
		return nil, err
	}
	out := &ai.ImageResponse{Model: ai.Pick(resp.ModelVersion, model), RequestID: resp.ResponseID}
	for _, cand := range resp.Candidates[:min(len(resp.Candidates), 1)] {
		for _, p := range cand.Content.Parts {
			if p.InlineData == nil {
				continue
			}
			data, err := base64.StdEncoding.DecodeString(p.InlineData.Data)
			if err != nil {
				return nil, c.call.Fault(ai.CapImageGeneration, meta, ai.ReasonMalformed)
			}
			out.Images = append(out.Images, ai.GeneratedImage{MIMEType: p.InlineData.MIMEType, Data: data})
		}
	}
	if resp.UsageMetadata != nil {
		out.Usage = resp.UsageMetadata.usage()
	}
	out.Usage.Images = len(out.Images)
	return out, nil
}

// aspectRatio turns "1024x768" into "4:3" when Gemini knows that ratio.
func aspectRatio(size string) string {
	w, h, ok := strings.Cut(size, "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || wi <= 0 || hi <= 0 {
		return ""
	}
	g := gcd(wi, hi)
	r := strconv.Itoa(wi/g) + ":" + strconv.Itoa(hi/g)
	if aspectRatios[r] {
		return r
	}
	return ""
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
