package workersai

import (
	"context"
	"encoding/base64"
	"net/http"

	"github.com/platform/backend/providers/ai"
)

// Embed runs an embedding model (bge: {text: [...]} -> {shape, data}). The
// API reports no tokens; Usage.InputCharacters counts the input instead.
func (c *Client) Embed(ctx context.Context, req ai.EmbeddingRequest) (*ai.EmbeddingResponse, error) {
	if err := ai.Require(ai.ProtocolWorkersAI, c.conn.Capabilities, ai.CapEmbeddings); err != nil {
		return nil, err
	}
	model := ai.Pick(req.Model, c.models.Embedding)
	if model == "" || len(req.Input) == 0 || req.Dimensions != 0 {
		return nil, ai.Invalid(ai.ProtocolWorkersAI, ai.CapEmbeddings, "no model, no input, or dimensions asked (fixed per model)")
	}
	r, err := c.run(ai.CapEmbeddings, model, map[string]any{"text": req.Input})
	if err != nil {
		return nil, err
	}
	res, meta, err := do[struct {
		Shape []int       `json:"shape"`
		Data  [][]float32 `json:"data"`
	}](ctx, c, r)
	if err != nil {
		return nil, err
	}
	if len(res.Data) != len(req.Input) {
		return nil, c.call.Fault(ai.CapEmbeddings, meta, "answer lacks a vector")
	}
	out := &ai.EmbeddingResponse{Vectors: res.Data, Model: model, RequestID: meta.RequestID}
	for _, in := range req.Input {
		out.Usage.InputCharacters += int64(len([]rune(in)))
	}
	return out, nil
}

// Transcribe runs a whisper model with base64 audio (whisper-large-v3-turbo's
// input; the older whisper models take raw bytes and are not spoken here).
// The duration comes from transcription_info.
func (c *Client) Transcribe(ctx context.Context, req ai.TranscriptionRequest) (*ai.TranscriptionResponse, error) {
	if err := ai.Require(ai.ProtocolWorkersAI, c.conn.Capabilities, ai.CapTranscription); err != nil {
		return nil, err
	}
	model := ai.Pick(req.Model, c.models.Transcription)
	if model == "" || len(req.Audio) == 0 {
		return nil, ai.Invalid(ai.ProtocolWorkersAI, ai.CapTranscription, "no model or no audio")
	}
	body := map[string]any{"audio": base64.StdEncoding.EncodeToString(req.Audio)}
	if req.Language != "" {
		body["language"] = req.Language
	}
	if req.Prompt != "" {
		body["initial_prompt"] = req.Prompt
	}
	r, err := c.run(ai.CapTranscription, model, body)
	if err != nil {
		return nil, err
	}
	res, meta, err := do[struct {
		Text              string `json:"text"`
		TranscriptionInfo *struct {
			Language string  `json:"language"`
			Duration float64 `json:"duration"`
		} `json:"transcription_info"`
	}](ctx, c, r)
	if err != nil {
		return nil, err
	}
	out := &ai.TranscriptionResponse{Text: res.Text, Language: req.Language, Model: model, RequestID: meta.RequestID}
	if ti := res.TranscriptionInfo; ti != nil {
		out.Language = ai.Pick(ti.Language, req.Language)
		out.Usage.AudioSeconds = ti.Duration
	}
	return out, nil
}

// GenerateImage runs a text-to-image model answering JSON with a base64
// image (flux-1-schnell); one image per call.
func (c *Client) GenerateImage(ctx context.Context, req ai.ImageRequest) (*ai.ImageResponse, error) {
	if err := ai.Require(ai.ProtocolWorkersAI, c.conn.Capabilities, ai.CapImageGeneration); err != nil {
		return nil, err
	}
	model := ai.Pick(req.Model, c.models.Image)
	if model == "" || req.Prompt == "" || req.N > 1 {
		return nil, ai.Invalid(ai.ProtocolWorkersAI, ai.CapImageGeneration, "no model, no prompt, or more than one image")
	}
	r, err := c.run(ai.CapImageGeneration, model, map[string]any{"prompt": req.Prompt})
	if err != nil {
		return nil, err
	}
	res, meta, err := do[struct {
		Image string `json:"image"`
	}](ctx, c, r)
	if err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(res.Image)
	if err != nil || len(data) == 0 {
		return nil, c.call.Fault(ai.CapImageGeneration, meta, ai.ReasonMalformed)
	}
	return &ai.ImageResponse{Model: model, RequestID: meta.RequestID, Usage: ai.Usage{Images: 1},
		Images: []ai.GeneratedImage{{MIMEType: http.DetectContentType(data), Data: data}}}, nil
}
