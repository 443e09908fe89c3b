package gateway

import (
	"context"
	"encoding/json"
	"net/http"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/providers/ai"
)

// Input members of the AI actions (seed 001).
var (
	providerEnum  = `{"type":"string","enum":["ai_provider_1","ai_provider_2","ai_provider_3","ai_provider_4","ai_provider_5"]}`
	provider5     = `{"type":"string","const":"ai_provider_5"}`
	modelSchema   = httpapi.LineSchema(1, text.MaxID)
	useCaseSchema = `{"type":"string","enum":["chat","completion","embedding","image","other"],"default":"chat"}`
	// Texts of a completion: the 1 MiB body bounds them all together.
	contentText = httpapi.TextSchema(0, maxContent)
	// base64Schema is standard base64 of at least one byte.
	base64Schema = httpapi.StringSchema(4, maxBase64, `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`, nil)
	mimeSchema   = httpapi.PatternSchema(text.MaxID, `^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$`)
	filename     = httpapi.LineSchema(1, 255)
)

const (
	maxContent = 200_000
	maxBase64  = 1_400_000 // a 1 MiB body holds about this much base64
)

// messageSchema is one completion message: a tool result names its call.
var messageSchema = `{"type":"object","additionalProperties":false,"required":["role"],"properties":{
	"role":{"type":"string","enum":["system","user","assistant","tool"]},
	"content":{"anyOf":[` + contentText + `,{"type":"array","minItems":1,"maxItems":64,"items":{"oneOf":[
		{"type":"object","additionalProperties":false,"required":["type","text"],"properties":{"type":{"const":"text"},"text":` + contentText + `}},
		{"type":"object","additionalProperties":false,"required":["type","image_url"],"properties":{"type":{"const":"image_url"},
			"image_url":{"type":"object","additionalProperties":false,"required":["url"],"properties":{
				"url":` + httpapi.StringSchema(16, maxBase64, `^data:image/[a-z0-9.+-]+;base64,(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`, nil) + `}}}}]}},
		{"type":"null"}]},
	"tool_call_id":` + httpapi.LineSchema(1, text.MaxID) + `,
	"tool_calls":{"type":"array","maxItems":64,"items":{"type":"object","additionalProperties":false,"required":["id","type","function"],"properties":{
		"id":` + httpapi.LineSchema(1, text.MaxID) + `,"type":{"const":"function"},
		"function":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
			"name":` + toolName + `,"arguments":` + httpapi.StringSchema(0, maxContent, `^\s*\{[\s\S]*\}\s*$`, nil) + `}}}}},
	"name":` + httpapi.LineSchema(1, text.MaxID) + `},
	"if":{"properties":{"role":{"const":"tool"}}},"then":{"required":["tool_call_id"]}}`

const toolName = `{"type":"string","maxLength":64,"pattern":"^[A-Za-z0-9_-]{1,64}$"}`

var toolSchema = `{"type":"object","additionalProperties":false,"required":["type","function"],"properties":{
	"type":{"const":"function"},
	"function":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
		"name":` + toolName + `,"description":` + httpapi.TextSchema(0, 4000) + `,
		"parameters":{"type":"object","required":["type"],"properties":{"type":{"const":"object"}}}}}}}`

var responseFormatSchema = `{"type":"object","additionalProperties":false,"required":["type","json_schema"],"properties":{
	"type":{"const":"json_schema"},
	"json_schema":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
		"name":` + toolName + `,"strict":{"type":"boolean"},
		"schema":{"type":"object","required":["type"],"properties":{"type":{"const":"object"}}}}}}}`

// completionSchema: every member optional (seed 001), but a completion
// needs messages or a prompt; stated, so the schema admits what runs.
var completionSchema = withAnyOf(httpapi.Object(nil, map[string]string{
	"provider": providerEnum, "model": modelSchema,
	"messages": `{"type":"array","minItems":1,"maxItems":256,"items":` + messageSchema + `}`,
	"prompt":   httpapi.TextSchema(1, maxContent), "max_tokens": `{"type":"integer","minimum":1,"maximum":32000}`,
	"temperature": `{"type":"number","minimum":0,"maximum":2}`, "stream": booleanSchema, "app_id": appIDSchema,
	"use_case": useCaseSchema, "response_format": responseFormatSchema,
	"tools": `{"type":"array","maxItems":64,"items":` + toolSchema + `}`,
}), []string{"messages"}, []string{"prompt"})

var translationSchema = httpapi.Object([]string{"target_locale", "texts"}, map[string]string{
	"target_locale": httpapi.LineSchema(2, 16),
	"texts": `{"type":"object","minProperties":1,"maxProperties":200,"propertyNames":` + httpapi.LineSchema(1, text.MaxID) +
		`,"additionalProperties":` + httpapi.TextSchema(1, 4000) + `}`,
	"provider": providerEnum, "model": modelSchema,
	"source_locale": httpapi.WithMember(httpapi.LineSchema(2, 16), "default", "en"),
	"namespace":     httpapi.WithMember(httpapi.LineSchema(1, 80), "default", "common"),
	"context":       httpapi.TextSchema(0, 2000), "app_id": appIDSchema,
	"auto_publish": `{"type":"boolean","default":true}`,
})

var embeddingSchema = httpapi.Object([]string{"input"}, map[string]string{
	"input": `{"anyOf":[` + httpapi.TextSchema(1, maxContent) + `,{"type":"array","minItems":1,"maxItems":64,"items":` +
		httpapi.TextSchema(1, maxContent) + `}]}`,
	"provider": provider5, "model": modelSchema, "app_id": appIDSchema,
})

var markdownSchema = httpapi.Object([]string{"filename", "data_base64"}, map[string]string{
	"filename": filename, "data_base64": base64Schema, "provider": provider5, "mime_type": mimeSchema, "app_id": appIDSchema,
})

var describeSchema = httpapi.Object([]string{"filename", "data_base64"}, map[string]string{
	"filename": filename, "data_base64": base64Schema, "provider": providerEnum, "model": modelSchema, "mime_type": mimeSchema,
	"prompt": httpapi.TextSchema(0, 4000), "max_tokens": `{"type":"integer","minimum":1,"maximum":2048}`, "app_id": appIDSchema,
})

var autoragSchema = httpapi.Object([]string{"instance", "query"}, map[string]string{
	"instance": httpapi.LineSchema(1, text.MaxID), "query": httpapi.TextSchema(1, 4000),
	"max_num_results": `{"type":"integer","minimum":1,"maximum":20}`, "rewrite_query": booleanSchema,
	"ranking_options": `{"type":"object","additionalProperties":false,"properties":{"score_threshold":{"type":"number","minimum":0,"maximum":1}}}`,
	"app_id":          appIDSchema,
})

// transcriptionSchema: none required (seed 001), but the audio comes one
// way or the other.
var transcriptionSchema = withAnyOf(httpapi.Object(nil, map[string]string{
	"audioDataUrl": httpapi.StringSchema(16, maxBase64, `^data:[a-z0-9.+/-]+;base64,(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`, nil),
	"audioBase64":  base64Schema, "mime_type": mimeSchema, "language": httpapi.PatternSchema(8, `^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,4})?$`),
	"initial_prompt": httpapi.TextSchema(0, 400), "duration_ms": `{"type":"integer","minimum":0,"maximum":86400000}`,
	"model": modelSchema, "provider": provider5, "app_id": appIDSchema,
}), []string{"audioDataUrl"}, []string{"audioBase64"})

// aiProblems: a spend cap (402), the provider's failure (502) and timeout (504).
var aiProblems = []int{http.StatusPaymentRequired, http.StatusBadGateway, http.StatusGatewayTimeout}

// EmbeddingRequest is ai.embeddings.create's input over HTTP: input is a
// string or an array of strings.
type EmbeddingRequest struct {
	Input    json.RawMessage `json:"input"`
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	AppID    string          `json:"app_id"`
}

func aiArea(d Deps) Area {
	completions := httpapi.Query(httpapi.Action{
		Name: "ai.completions.create", Method: http.MethodPost, Path: "/api/ai/completions", Permission: "ai:invoke", Streams: true,
		Summary: "A chat completion through the metered path; stream: true answers server-sent events (delta events as they arrive, " +
			"a usage event, data: [DONE]; an error event if the stream breaks)", Problems: aiProblems,
		OutputSchema: open(gatewaycmd.Completion{}), InputSchema: completionSchema,
	}, func(ctx context.Context, p principal.Principal, in gatewaycmd.CompletionInput) (gatewaycmd.Completion, error) {
		return d.Client.Complete(ctx, callerOf(ctx, p), in)
	})
	complete := completions.Handle
	completions.Handle = func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
		var in gatewaycmd.CompletionInput
		if err := c.Decode(&in); err != nil {
			return httpapi.Reply{}, err
		}
		if !in.Stream {
			return complete(ctx, c)
		}
		return httpapi.Reply{Stream: d.stream(callerOf(ctx, c.Principal), in)}, nil
	}
	return Area{Actions: []httpapi.Action{
		completions,
		httpapi.Query(httpapi.Action{
			Name: "ai.translations.create", Method: http.MethodPost, Path: "/api/ai/translations", Permission: "ai:translate",
			Summary: "Translate texts (key -> text) to a locale: one completion with a structured output", Problems: aiProblems,
			OutputSchema: open(gatewaycmd.Translation{}), InputSchema: translationSchema,
		}, func(ctx context.Context, p principal.Principal, in gatewaycmd.TranslationInput) (gatewaycmd.Translation, error) {
			return d.Client.Translate(ctx, callerOf(ctx, p), in)
		}),
		httpapi.Query(httpapi.Action{
			Name: "ai.embeddings.create", Method: http.MethodPost, Path: "/api/ai/embeddings", Permission: "ai:invoke",
			Summary: "Embed a text or up to 64 texts (ai_provider_5)", Problems: aiProblems,
			OutputSchema: open(gatewaycmd.Embeddings{}), InputSchema: embeddingSchema,
		}, func(ctx context.Context, p principal.Principal, in EmbeddingRequest) (gatewaycmd.Embeddings, error) {
			texts, err := textsOf(in.Input)
			if err != nil {
				return gatewaycmd.Embeddings{}, err
			}
			return d.Client.Embed(ctx, callerOf(ctx, p), gatewaycmd.EmbeddingInput{Input: texts, Provider: in.Provider, Model: in.Model, AppID: in.AppID})
		}),
		httpapi.Query(httpapi.Action{
			Name: "ai.markdown.create", Method: http.MethodPost, Path: "/api/ai/markdown", Permission: "ai:invoke",
			Summary: "Convert a document (base64) to markdown (ai_provider_5)", Problems: aiProblems,
			OutputSchema: open(gatewaycmd.Markdown{}), InputSchema: markdownSchema,
		}, func(ctx context.Context, p principal.Principal, in gatewaycmd.MarkdownInput) (gatewaycmd.Markdown, error) {
			return d.Client.ConvertToMarkdown(ctx, callerOf(ctx, p), in)
		}),
		httpapi.Query(httpapi.Action{
			Name: "ai.image.describe", Method: http.MethodPost, Path: "/api/ai/image/describe", Permission: "ai:invoke",
			Summary: "Describe an image (base64): a completion with the image and a prompt", Problems: aiProblems,
			OutputSchema: open(gatewaycmd.ImageDescription{}), InputSchema: describeSchema,
		}, func(ctx context.Context, p principal.Principal, in gatewaycmd.ImageDescriptionInput) (gatewaycmd.ImageDescription, error) {
			return d.Client.DescribeImage(ctx, callerOf(ctx, p), in)
		}),
		httpapi.Query(httpapi.Action{
			Name: "ai.autorag.search", Method: http.MethodPost, Path: "/api/ai/autorag/search", Permission: "ai:invoke",
			Summary: "Search a managed retrieval instance (ai_provider_5's AutoRAG)", Problems: aiProblems,
			OutputSchema: open(gatewaycmd.RAGSearch{}, httpapi.OpenObject("results[].attributes")), InputSchema: autoragSchema,
		}, func(ctx context.Context, p principal.Principal, in gatewaycmd.RAGSearchInput) (gatewaycmd.RAGSearch, error) {
			return d.Client.SearchRAG(ctx, callerOf(ctx, p), in)
		}),
		httpapi.Query(httpapi.Action{
			Name: "ai.transcriptions.create", Method: http.MethodPost, Path: "/api/ai/transcriptions", Permission: "ai:invoke",
			Summary: "Transcribe audio (a data URL or base64; ai_provider_5)", Problems: aiProblems,
			OutputSchema: open(gatewaycmd.Transcription{}), InputSchema: transcriptionSchema,
		}, func(ctx context.Context, p principal.Principal, in gatewaycmd.TranscriptionInput) (gatewaycmd.Transcription, error) {
			return d.Client.Transcribe(ctx, callerOf(ctx, p), in)
		}),
	}}
}

// stream answers a streamed completion as server-sent events: each delta
// as it arrives, then the usage and [DONE]. A failure before the first
// delta (a spend cap, the provider refusing) is an ordinary problem answer.
func (d Deps) stream(caller gatewaycmd.Caller, in gatewaycmd.CompletionInput) httpapi.EventStream {
	return func(ctx context.Context, w *httpapi.EventWriter) error {
		sum, err := d.Client.Stream(ctx, caller, in, func(delta ai.Delta) error { return w.Send("delta", deltaOf(delta)) })
		if err != nil {
			return err
		}
		if err := w.Send("usage", sum); err != nil {
			return err
		}
		return w.Done()
	}
}

// Delta is one streamed piece: text, or a fragment of a tool call.
type Delta struct {
	Text     string    `json:"text,omitempty"`
	ToolCall *ToolCall `json:"tool_call,omitempty"`
}

type ToolCall struct {
	Index     int    `json:"index"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

func deltaOf(d ai.Delta) Delta {
	out := Delta{Text: d.Text}
	if tc := d.ToolCall; tc != nil {
		out.ToolCall = &ToolCall{Index: tc.Index, ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
	}
	return out
}

// callerOf is who an HTTP call is for; its request id correlates the usage
// event with the request.
func callerOf(ctx context.Context, p principal.Principal) gatewaycmd.Caller {
	return gatewaycmd.Caller{OrganizationID: p.OrganizationID, PrincipalID: p.ID, PrincipalType: p.Type, CorrelationID: httpapi.RequestID(ctx)}
}

// textsOf reads an embedding's input: one string or an array of them.
func textsOf(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errsInvalid("/input", "must be a string or an array of strings")
	}
	return many, nil
}

// withAnyOf adds "one of these member sets is required" to an object schema.
func withAnyOf(schema json.RawMessage, sets ...[]string) json.RawMessage {
	var s map[string]any
	_ = json.Unmarshal(schema, &s)
	var alts []map[string]any
	for _, set := range sets {
		alts = append(alts, map[string]any{"required": set})
	}
	s["anyOf"] = alts
	out, _ := json.Marshal(s)
	return out
}
