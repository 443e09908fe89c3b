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

// base64Body is standard base64 of at least one byte, to the end.
const base64Body = `(?:(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?|[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$`

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
				"url":` + httpapi.StringSchema(16, maxBase64, `^data:image/[a-z0-9.+-]+;base64,`+base64Body, nil) + `}}}}]}},
		{"type":"null"}]},
	"tool_call_id":` + httpapi.LineSchema(1, text.MaxID) + `,
	"tool_calls":{"type":"array","maxItems":64,"items":{"type":"object","additionalProperties":false,"required":["id","type","function"],"properties":{
		"id":` + httpapi.LineSchema(1, text.MaxID) + `,"type":{"const":"function"},
		"function":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
			"name":` + toolName + `,"arguments":` + httpapi.StringSchema(0, maxContent, `^[\t\n\r ]*\{[^\x00]*\}[\t\n\r ]*$`, nil) + `}}}}},
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
	"instance": httpapi.PatternSchema(64, `^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`), "query": httpapi.TextSchema(1, 4000),
	"max_num_results": `{"type":"integer","minimum":1,"maximum":20}`, "rewrite_query": booleanSchema,
	"ranking_options": `{"type":"object","additionalProperties":false,"properties":{"score_threshold":{"type":"number","minimum":0,"maximum":1}}}`,
	"app_id":          appIDSchema,
})

// transcriptionSchema: none required (seed 001), but the audio comes one
// way or the other.
var transcriptionSchema = withAnyOf(httpapi.Object(nil, map[string]string{
	"audioDataUrl": httpapi.StringSchema(16, maxBase64, `^data:[a-z0-9.+/-]+;base64,`+base64Body, nil),
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

// aiAction binds an AI action to a client method: the caller is the
// credential's principal, every action answers the same problems.
func aiAction[In, Out any](name, path, permission, summary string, out, in json.RawMessage,
	call func(context.Context, gatewaycmd.Caller, In) (Out, error)) httpapi.Action {
	return httpapi.Query(httpapi.Action{Name: name, Method: http.MethodPost, Path: path, Permission: permission, Summary: summary,
		Problems: aiProblems, OutputSchema: out, InputSchema: in},
		func(ctx context.Context, p principal.Principal, input In) (Out, error) {
			return call(ctx, callerOf(ctx, p), input)
		})
}

func aiArea(d Deps) Area {
	completions := aiAction("ai.completions.create", "/api/ai/completions", "ai:invoke",
		"A chat completion through the metered path; stream: true answers server-sent events (delta events as they arrive, "+
			"a usage event, data: [DONE]; an error event if the stream breaks)",
		open(gatewaycmd.Completion{}), completionSchema, d.Client.Complete)
	completions.Streams = true
	// The input is decoded once, for both answers (the Query's own handle
	// would decode it again: one reflection pass a completion).
	completions.Handle = func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
		var in gatewaycmd.CompletionInput
		if err := c.Decode(&in); err != nil {
			return httpapi.Reply{}, err
		}
		if !in.Stream {
			out, err := d.Client.Complete(ctx, callerOf(ctx, c.Principal), in)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return httpapi.OK(out), nil
		}
		return httpapi.Reply{Stream: d.stream(callerOf(ctx, c.Principal), in)}, nil
	}
	return Area{Actions: []httpapi.Action{
		completions,
		aiAction("ai.translations.create", "/api/ai/translations", "ai:translate",
			"Translate texts (key -> text) to a locale: one completion with a structured output",
			open(gatewaycmd.Translation{}), translationSchema, d.Client.Translate),
		aiAction("ai.embeddings.create", "/api/ai/embeddings", "ai:invoke", "Embed a text or up to 64 texts (ai_provider_5)",
			open(gatewaycmd.Embeddings{}), embeddingSchema, func(ctx context.Context, caller gatewaycmd.Caller, in EmbeddingRequest) (gatewaycmd.Embeddings, error) {
				texts, err := textsOf(in.Input)
				if err != nil {
					return gatewaycmd.Embeddings{}, err
				}
				return d.Client.Embed(ctx, caller, gatewaycmd.EmbeddingInput{Input: texts, Provider: in.Provider, Model: in.Model, AppID: in.AppID})
			}),
		aiAction("ai.markdown.create", "/api/ai/markdown", "ai:invoke", "Convert a document (base64) to markdown (ai_provider_5)",
			open(gatewaycmd.Markdown{}), markdownSchema, d.Client.ConvertToMarkdown),
		aiAction("ai.image.describe", "/api/ai/image/describe", "ai:invoke",
			"Describe an image (base64): a completion with the image and a prompt",
			open(gatewaycmd.ImageDescription{}), describeSchema, d.Client.DescribeImage),
		aiAction("ai.autorag.search", "/api/ai/autorag/search", "ai:invoke", "Search a managed retrieval instance (ai_provider_5's AutoRAG)",
			open(gatewaycmd.RAGSearch{}, httpapi.OpenObject("results[].attributes")), autoragSchema, d.Client.SearchRAG),
		aiAction("ai.transcriptions.create", "/api/ai/transcriptions", "ai:invoke", "Transcribe audio (a data URL or base64; ai_provider_5)",
			open(gatewaycmd.Transcription{}), transcriptionSchema, d.Client.Transcribe),
		imagesAction(d),
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
	return gatewaycmd.Caller{OrganizationID: p.OrganizationID, PrincipalID: p.ID, PrincipalType: p.Type, UserID: p.ActingUser(),
		CorrelationID: httpapi.RequestID(ctx)}
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

// withAllOf adds conditions (JSON Schema objects) an object must meet.
func withAllOf(schema json.RawMessage, conditions ...string) json.RawMessage {
	var s map[string]any
	_ = json.Unmarshal(schema, &s)
	var all []json.RawMessage
	for _, c := range conditions {
		all = append(all, json.RawMessage(c))
	}
	s["allOf"] = all
	out, _ := json.Marshal(s)
	return out
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
