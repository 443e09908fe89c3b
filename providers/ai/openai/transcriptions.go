package openai

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/textproto"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

type transcriptionResponse struct {
	Text     string   `json:"text"`
	Language string   `json:"language"` // verbose_json only
	Duration *float64 `json:"duration"` // verbose_json only
	Usage    *struct {
		Type         string  `json:"type"` // "duration" (whisper-1) | "tokens" (gpt-4o-transcribe)
		Seconds      float64 `json:"seconds"`
		InputTokens  int64   `json:"input_tokens"`
		OutputTokens int64   `json:"output_tokens"`
	} `json:"usage"`
}

// Transcribe runs POST /audio/transcriptions (multipart/form-data) with
// response_format json, the one format every transcription model accepts.
// The audio's duration comes from usage.seconds when the model bills by
// duration; token-billed models report tokens instead.
func (c *Client) Transcribe(ctx context.Context, req ai.TranscriptionRequest) (*ai.TranscriptionResponse, error) {
	if err := ai.Require(ai.ProtocolOpenAI, c.conn.Capabilities, ai.CapTranscription); err != nil {
		return nil, err
	}
	model := ai.Pick(req.Model, c.models.Transcription)
	if model == "" || len(req.Audio) == 0 {
		return nil, ai.Invalid(ai.ProtocolOpenAI, ai.CapTranscription, "no model or no audio")
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+audioFilename(req)+`"`)
	h.Set("Content-Type", ai.Pick(req.MIMEType, "application/octet-stream"))
	fw, _ := mw.CreatePart(h)
	_, _ = fw.Write(req.Audio)
	fields := [][2]string{{"model", model}, {"response_format", "json"}, {"language", req.Language}, {"prompt", req.Prompt}}
	for _, f := range fields {
		if f[1] != "" {
			_ = mw.WriteField(f[0], f[1])
		}
	}
	_ = mw.Close()

	var resp transcriptionResponse
	meta, err := c.call.Do(ctx, httpcall.Request{Capability: ai.CapTranscription, URL: c.conn.BaseURL + "/audio/transcriptions",
		Header: c.header(), Body: buf.Bytes(), ContentType: mw.FormDataContentType()}, &resp)
	if err != nil {
		return nil, err
	}
	out := &ai.TranscriptionResponse{Text: resp.Text, Language: ai.Pick(resp.Language, req.Language), Model: model, RequestID: meta.RequestID}
	if resp.Duration != nil {
		out.Usage.AudioSeconds = *resp.Duration
	}
	if u := resp.Usage; u != nil {
		if u.Type == "duration" {
			out.Usage.AudioSeconds = u.Seconds
		}
		out.Usage.InputTokens, out.Usage.OutputTokens = u.InputTokens, u.OutputTokens
	}
	return out, nil
}

// audioFilename names the upload: OpenAI infers the audio format from the
// file's extension, so it must match the MIME type.
func audioFilename(req ai.TranscriptionRequest) string {
	if req.Filename != "" && !bytes.ContainsAny([]byte(req.Filename), "\"\r\n\\") {
		return req.Filename
	}
	ext := map[string]string{
		"audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
		"audio/webm": "webm", "audio/ogg": "ogg", "audio/flac": "flac", "audio/x-flac": "flac",
		"audio/mp4": "m4a", "audio/m4a": "m4a", "audio/x-m4a": "m4a", "video/mp4": "mp4",
	}[req.MIMEType]
	if ext == "" {
		ext = "mp3"
	}
	return "audio." + ext
}
