package gateway

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/ai"
)

// The media operations run on ai_provider_5 (seed 001's const) unless a
// library caller names another provider that offers them.

// EmbeddingInput is ai.embeddings.create's input: input is a string or
// 1..64 strings.
type EmbeddingInput struct {
	Input    []string `json:"-"`
	Provider string   `json:"provider"`
	Model    string   `json:"model"`
	AppID    string   `json:"app_id"`
}

// Embeddings are one vector per input, in order.
type Embeddings struct {
	Receipt
	Embeddings   [][]float32 `json:"embeddings"`
	ConnectionID string      `json:"connection_id"`
	Sandbox      bool        `json:"sandbox"`
}

// Embed embeds texts through the metered path.
func (c *Client) Embed(ctx context.Context, caller Caller, in EmbeddingInput) (Embeddings, error) {
	if len(in.Input) == 0 {
		return Embeddings{}, errs.InvalidField("/input", "at least one text")
	}
	conn, err := c.connection(ctx, caller, firstOf(in.Provider, string(ai.Provider5)))
	if err != nil {
		return Embeddings{}, err
	}
	model := ai.Pick(in.Model, conn.Info.Models.Embedding)
	call := c.aiCall(withDefaults(caller, in.AppID, "embedding"), conn, "ai.embeddings", model, prices.OpEmbedding, textsEstimate(in.Input))
	receipt, resp, err := meterAI(ctx, c, call, func(ctx context.Context) (*ai.EmbeddingResponse, error) {
		return conn.Provider.Embed(ctx, ai.EmbeddingRequest{Model: model, Input: in.Input})
	}, func(r *ai.EmbeddingResponse) (ai.Usage, string) { return r.Usage, r.RequestID })
	if err != nil {
		return Embeddings{}, err
	}
	return Embeddings{Receipt: receipt, Embeddings: resp.Vectors, ConnectionID: conn.ID, Sandbox: conn.Sandbox}, nil
}

// MarkdownInput is ai.markdown.create's input.
type MarkdownInput struct {
	Filename   string `json:"filename"`
	DataBase64 string `json:"data_base64"`
	Provider   string `json:"provider"`
	MIMEType   string `json:"mime_type"`
	AppID      string `json:"app_id"`
}

// Markdown is a converted document.
type Markdown struct {
	Receipt
	Filename     string `json:"filename"`
	MIMEType     string `json:"mime_type"`
	Markdown     string `json:"markdown"`
	ConnectionID string `json:"connection_id"`
	Sandbox      bool   `json:"sandbox"`
}

// ConvertToMarkdown converts a document through the metered path (priced
// per document).
func (c *Client) ConvertToMarkdown(ctx context.Context, caller Caller, in MarkdownInput) (Markdown, error) {
	data, err := decodeBase64("/data_base64", in.DataBase64)
	if err != nil {
		return Markdown{}, err
	}
	conn, err := c.connection(ctx, caller, firstOf(in.Provider, string(ai.Provider5)))
	if err != nil {
		return Markdown{}, err
	}
	mime := firstOf(in.MIMEType, sniff(data))
	call := c.aiCall(withDefaults(caller, in.AppID, "other"), conn, "ai.markdown", prices.AnyModel, prices.OpMarkdown, prices.Units{Calls: 1})
	receipt, resp, err := meterAI(ctx, c, call, func(ctx context.Context) (*ai.MarkdownResponse, error) {
		return conn.Provider.ConvertToMarkdown(ctx, ai.MarkdownRequest{Files: []ai.File{{Name: in.Filename, MIMEType: mime, Data: data}}})
	}, func(r *ai.MarkdownResponse) (ai.Usage, string) { return r.Usage, r.RequestID })
	if err != nil {
		return Markdown{}, err
	}
	out := Markdown{Receipt: receipt, Filename: in.Filename, MIMEType: mime, ConnectionID: conn.ID, Sandbox: conn.Sandbox}
	if len(resp.Documents) > 0 {
		if resp.Documents[0].Failed {
			return Markdown{}, errs.InvalidField("/data_base64", "the provider could not convert this document")
		}
		out.Markdown = resp.Documents[0].Markdown
	}
	return out, nil
}

// ImageDescriptionInput is ai.image.describe's input.
type ImageDescriptionInput struct {
	Filename   string `json:"filename"`
	DataBase64 string `json:"data_base64"`
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	MIMEType   string `json:"mime_type"`
	Prompt     string `json:"prompt"`
	MaxTokens  int    `json:"max_tokens"`
	AppID      string `json:"app_id"`
}

// ImageDescription is the description with what it cost.
type ImageDescription struct {
	Receipt
	Description  string `json:"description"`
	ConnectionID string `json:"connection_id"`
	Sandbox      bool   `json:"sandbox"`
}

// DefaultDescribeMaxTokens bounds a description when the input names none.
const DefaultDescribeMaxTokens = 1024

// DescribeImage describes an image (a completion with the image and a
// prompt) through the metered path.
func (c *Client) DescribeImage(ctx context.Context, caller Caller, in ImageDescriptionInput) (ImageDescription, error) {
	data, err := decodeBase64("/data_base64", in.DataBase64)
	if err != nil {
		return ImageDescription{}, err
	}
	mime := in.MIMEType
	if mime == "" {
		// An image the sniffer knows, else the provider judges the bytes as PNG.
		if mime = sniff(data); !strings.HasPrefix(mime, "image/") {
			mime = "image/png"
		}
	}
	conn, err := c.connection(ctx, caller, in.Provider)
	if err != nil {
		return ImageDescription{}, err
	}
	req := ai.DescriptionCompletion(ai.ImageDescriptionRequest{Model: in.Model, Image: ai.Image{MIMEType: mime, Data: data}, Prompt: in.Prompt,
		MaxTokens: firstInt(in.MaxTokens, DefaultDescribeMaxTokens)})
	req.Model = conn.Info.Models.ForCompletion(req)
	call := c.aiCall(withDefaults(caller, in.AppID, "image"), conn, "ai.image.describe", req.Model, prices.OpChat, completionEstimate(req))
	receipt, resp, err := meterAI(ctx, c, call, func(ctx context.Context) (*ai.CompletionResponse, error) {
		if err := ai.Require(conn.Provider.Protocol(), conn.Provider.Capabilities(), ai.CapVision); err != nil {
			return nil, err
		}
		return conn.Provider.Complete(ctx, req)
	}, completionUsage)
	if err != nil {
		return ImageDescription{}, err
	}
	return ImageDescription{Receipt: receipt, Description: resp.Text, ConnectionID: conn.ID, Sandbox: conn.Sandbox}, nil
}

// RAGSearchInput is ai.autorag.search's input.
type RAGSearchInput struct {
	Instance       string `json:"instance"`
	Query          string `json:"query"`
	MaxNumResults  int    `json:"max_num_results"`
	RewriteQuery   *bool  `json:"rewrite_query"`
	RankingOptions *struct {
		ScoreThreshold *float64 `json:"score_threshold"`
	} `json:"ranking_options"`
	AppID    string `json:"app_id"`
	Provider string `json:"-"`
}

// RAGSearch is what a search found.
type RAGSearch struct {
	Receipt
	SearchQuery  string   `json:"search_query"`
	Results      []RAGHit `json:"results"`
	HasMore      bool     `json:"has_more"`
	ConnectionID string   `json:"connection_id"`
	Sandbox      bool     `json:"sandbox"`
}

// RAGHit is one matching chunk.
type RAGHit struct {
	FileID     string         `json:"file_id"`
	Filename   string         `json:"filename"`
	Score      float64        `json:"score"`
	Attributes map[string]any `json:"attributes"`
	Text       string         `json:"text"`
}

// SearchRAG searches a managed retrieval instance through the metered path
// (priced per search).
func (c *Client) SearchRAG(ctx context.Context, caller Caller, in RAGSearchInput) (RAGSearch, error) {
	conn, err := c.connection(ctx, caller, firstOf(in.Provider, string(ai.Provider5)))
	if err != nil {
		return RAGSearch{}, err
	}
	req := ai.RAGSearchRequest{Instance: in.Instance, Query: in.Query, MaxResults: in.MaxNumResults, RewriteQuery: in.RewriteQuery}
	if in.RankingOptions != nil {
		req.ScoreThreshold = in.RankingOptions.ScoreThreshold
	}
	call := c.aiCall(withDefaults(caller, in.AppID, "other"), conn, "ai.autorag.search", prices.AnyModel, prices.OpRAGSearch, prices.Units{Calls: 1})
	receipt, resp, err := meterAI(ctx, c, call, func(ctx context.Context) (*ai.RAGSearchResponse, error) {
		return conn.Provider.SearchRAG(ctx, req)
	}, func(r *ai.RAGSearchResponse) (ai.Usage, string) { return r.Usage, r.RequestID })
	if err != nil {
		return RAGSearch{}, err
	}
	out := RAGSearch{Receipt: receipt, SearchQuery: resp.SearchQuery, Results: []RAGHit{}, HasMore: resp.HasMore, ConnectionID: conn.ID,
		Sandbox: conn.Sandbox}
	for _, r := range resp.Results {
		attrs := r.Attributes
		if attrs == nil {
			attrs = map[string]any{}
		}
		out.Results = append(out.Results, RAGHit{FileID: r.FileID, Filename: r.Filename, Score: r.Score, Attributes: attrs, Text: r.Text})
	}
	return out, nil
}

// TranscriptionInput is ai.transcriptions.create's input: the audio as a
// data URL or base64.
type TranscriptionInput struct {
	AudioDataURL  string `json:"audioDataUrl"`
	AudioBase64   string `json:"audioBase64"`
	MIMEType      string `json:"mime_type"`
	Language      string `json:"language"`
	InitialPrompt string `json:"initial_prompt"`
	DurationMS    *int64 `json:"duration_ms"`
	Model         string `json:"model"`
	Provider      string `json:"provider"`
	AppID         string `json:"app_id"`
}

// Transcription is the transcript with what it cost.
type Transcription struct {
	Receipt
	Text         string `json:"text"`
	Language     string `json:"language"`
	ConnectionID string `json:"connection_id"`
	Sandbox      bool   `json:"sandbox"`
}

// audioBytesPerSecond bounds audio from below (6 kbit/s: the thriftiest
// speech codecs), so bytes bound the duration a provider can bill.
const audioBytesPerSecond = 750

// Transcribe transcribes audio through the metered path. The reservation
// is the longer of the caller's duration and what the bytes can hold.
func (c *Client) Transcribe(ctx context.Context, caller Caller, in TranscriptionInput) (Transcription, error) {
	audio, mime, err := audioOf(in)
	if err != nil {
		return Transcription{}, err
	}
	conn, err := c.connection(ctx, caller, firstOf(in.Provider, string(ai.Provider5)))
	if err != nil {
		return Transcription{}, err
	}
	model := ai.Pick(in.Model, conn.Info.Models.Transcription)
	boundMS := int64(len(audio)) * 1000 / audioBytesPerSecond
	if in.DurationMS != nil {
		boundMS = max(boundMS, *in.DurationMS)
	}
	call := c.aiCall(withDefaults(caller, in.AppID, "other"), conn, "ai.transcriptions", model, prices.OpTranscription,
		prices.Units{AudioMS: max(boundMS, 1000)})
	receipt, resp, err := meterAI(ctx, c, call, func(ctx context.Context) (*ai.TranscriptionResponse, error) {
		return conn.Provider.Transcribe(ctx, ai.TranscriptionRequest{Model: model, Audio: audio, MIMEType: mime, Language: in.Language,
			Prompt: in.InitialPrompt})
	}, func(r *ai.TranscriptionResponse) (ai.Usage, string) {
		u := r.Usage
		if u.AudioSeconds == 0 && in.DurationMS != nil {
			u.AudioSeconds = float64(*in.DurationMS) / 1000 // the provider did not say; the caller did
		}
		return u, r.RequestID
	})
	if err != nil {
		return Transcription{}, err
	}
	return Transcription{Receipt: receipt, Text: resp.Text, Language: resp.Language, ConnectionID: conn.ID, Sandbox: conn.Sandbox}, nil
}

func audioOf(in TranscriptionInput) ([]byte, string, error) {
	switch {
	case in.AudioDataURL != "":
		rest, ok := strings.CutPrefix(in.AudioDataURL, "data:")
		mime, data, ok2 := strings.Cut(rest, ";base64,")
		if !ok || !ok2 {
			return nil, "", errs.InvalidField("/audioDataUrl", "must be a data URL (data:audio/...;base64,...)")
		}
		raw, err := decodeBase64("/audioDataUrl", data)
		return raw, firstOf(in.MIMEType, mime), err
	case in.AudioBase64 != "":
		raw, err := decodeBase64("/audioBase64", in.AudioBase64)
		return raw, firstOf(in.MIMEType, sniff(raw)), err
	}
	return nil, "", errs.InvalidField("/audioBase64", "audioDataUrl or audioBase64 is required")
}

func decodeBase64(pointer, s string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(s)
	}
	if err != nil || len(raw) == 0 {
		return nil, errs.InvalidField(pointer, "must be base64 of at least one byte")
	}
	return raw, nil
}

func sniff(data []byte) string {
	mime, _, _ := strings.Cut(http.DetectContentType(data), ";")
	return mime
}

func firstInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// invalidAI turns an input refusal of the AI kernel into a 422 at pointer.
func invalidAI(err error, pointer string) error {
	if e, ok := ai.AsError(err); ok {
		return errs.InvalidField(pointer, e.Reason)
	}
	return errs.InvalidField(pointer, fmt.Sprint(err))
}
