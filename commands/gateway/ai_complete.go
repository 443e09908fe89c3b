package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"runtime/trace"
	"strings"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/ai"
)

// Defaults of seed 001's AI inputs.
const (
	DefaultAppID    = "unknown"
	DefaultUseCase  = "chat"
	DefaultProvider = ai.Provider1
)

// CompletionInput is ai.completions.create's input (seed 001), also the
// library's.
type CompletionInput struct {
	Provider       string               `json:"provider"`
	Model          string               `json:"model"`
	Messages       []MessageInput       `json:"messages"`
	Prompt         *string              `json:"prompt"`
	MaxTokens      int                  `json:"max_tokens"`
	Temperature    *float64             `json:"temperature"`
	Stream         bool                 `json:"stream"`
	AppID          string               `json:"app_id"`
	UseCase        string               `json:"use_case"`
	ResponseFormat *ResponseFormatInput `json:"response_format"`
	Tools          []ToolInput          `json:"tools"`
	// IdempotencyKey, in-process only, makes Complete a keyed call
	// (keyed.go).
	IdempotencyKey string `json:"-"`
}

// MessageInput is one message: content is a string, a non-empty array of
// parts ({type: text, text} or {type: image_url, image_url: {url: a data
// URL}}), or null.
type MessageInput struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID *string         `json:"tool_call_id"`
	ToolCalls  []ToolCallInput `json:"tool_calls"`
	Name       *string         `json:"name"`
}

// ToolCallInput is a call an assistant turn made ({id, type: function,
// function: {name, arguments}}, arguments a JSON object as a string).
type ToolCallInput struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ToolInput is a function the model may call ({type: function, function:
// {name, description, parameters}}).
type ToolInput struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// ResponseFormatInput asks for structured output.
type ResponseFormatInput struct {
	Type       string `json:"type"`
	JSONSchema struct {
		Name   string          `json:"name"`
		Strict bool            `json:"strict"`
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
}

// Completion is a whole answer with what it cost.
type Completion struct {
	Receipt
	Text         string        `json:"text"`
	ToolCalls    []ToolCallOut `json:"tool_calls"`
	FinishReason string        `json:"finish_reason"`
	AnsweredBy   string        `json:"answered_by"` // the model as the provider named it
	ConnectionID string        `json:"connection_id"`
	Sandbox      bool          `json:"sandbox"`
}

// ToolCallOut is a call the model made.
type ToolCallOut struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Complete runs a completion through the metered path and returns the
// whole answer.
func (c *Client) Complete(ctx context.Context, caller Caller, in CompletionInput) (Completion, error) {
	if key := in.IdempotencyKey; key != "" {
		in.IdempotencyKey = ""
		out, _, err := keyed(ctx, c, caller.OrganizationID, key, "ai.completions", in, func(ctx context.Context) (Completion, error) {
			return c.Complete(ctx, caller, in)
		}, encodeJSON[Completion], decodeJSON[Completion])
		return out, err
	}
	conn, req, call, err := c.prepareCompletion(ctx, caller, in, "ai.completions")
	if err != nil {
		return Completion{}, err
	}
	receipt, resp, err := meterAI(ctx, c, call, func(ctx context.Context) (*ai.CompletionResponse, error) {
		return conn.Provider.Complete(ctx, req)
	}, completionUsage)
	if err != nil {
		return Completion{}, err
	}
	return completionOf(receipt, conn, resp), nil
}

func completionOf(r Receipt, conn AIConnection, resp *ai.CompletionResponse) Completion {
	out := Completion{Receipt: r, ToolCalls: []ToolCallOut{}, ConnectionID: conn.ID, Sandbox: conn.Sandbox}
	if resp != nil {
		out.Text, out.FinishReason, out.AnsweredBy = resp.Text, string(resp.FinishReason), resp.Model
		for _, tc := range resp.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, ToolCallOut{ID: tc.ID, Name: tc.Name, Arguments: objectOrEmpty(tc.Arguments)})
		}
	}
	return out
}

// StreamSummary is what a streamed completion cost, after its last delta.
type StreamSummary struct {
	Receipt
	FinishReason string `json:"finish_reason"`
	AnsweredBy   string `json:"answered_by"`
	Deltas       int    `json:"deltas"`
	ConnectionID string `json:"connection_id"`
	Sandbox      bool   `json:"sandbox"`
}

// Stream runs a streamed completion through the metered path, handing each
// delta to onDelta as it arrives (never buffering the answer). The final
// usage is metered; a stream cut in the middle or ended without its usage
// settles at the reservation or what was streamed, whichever is larger, and
// comes back as an error after the deltas already handed on (the caller
// tells its client; it is never a clean end).
func (c *Client) Stream(ctx context.Context, caller Caller, in CompletionInput, onDelta func(ai.Delta) error) (StreamSummary, error) {
	conn, req, call, err := c.prepareCompletion(ctx, caller, in, "ai.completions")
	if err != nil {
		return StreamSummary{}, err
	}
	var sum *ai.StreamSummary
	receipt, a, err := c.h.Metered(ctx, call, func(ctx context.Context) Attempt {
		callCtx, cancel := context.WithTimeout(ctx, c.h.cfg.StreamTimeout)
		defer cancel()
		var err error
		sum, err = conn.Provider.Stream(callCtx, req, onDelta)
		if sum == nil {
			return aiAttempt(ctx, callCtx, err, ai.Usage{}, "")
		}
		a := aiAttempt(ctx, callCtx, err, sum.Usage, sum.RequestID)
		switch {
		case err == nil && sum.UsageMissing:
			a.Partial, a.Outcome, a.Error = true, domain.OutcomeCut, ai.ReasonUsageMissing
		case err != nil && (sum.UsageMissing || sum.Deltas > 0):
			// Tokens were generated before the stream ended (the caller left,
			// or the provider cut it): settle at the reservation or what was
			// streamed, never at what little usage arrived.
			a.Partial = true
		}
		return a
	})
	if err != nil {
		return StreamSummary{}, err
	}
	out := StreamSummary{Receipt: receipt, ConnectionID: conn.ID, Sandbox: conn.Sandbox}
	if sum != nil {
		out.FinishReason, out.AnsweredBy, out.Deltas = string(sum.FinishReason), sum.Model, sum.Deltas
	}
	return out, Problem(receipt, a)
}

// prepareCompletion resolves the connection, builds the provider request
// (max tokens always set, so the reservation bounds the cost) and the
// metered call.
func (c *Client) prepareCompletion(ctx context.Context, caller Caller, in CompletionInput, action string) (AIConnection, ai.CompletionRequest, Call, error) {
	req, err := completionRequest(in, c.h.cfg.DefaultMaxTokens)
	if err != nil {
		return AIConnection{}, req, Call{}, err
	}
	resolving := trace.StartRegion(ctx, "gateway.connection")
	conn, err := c.connection(ctx, caller, in.Provider)
	resolving.End()
	if err != nil {
		return conn, req, Call{}, err
	}
	req.Model = conn.Info.Models.ForCompletion(req)
	caller = withDefaults(caller, in.AppID, in.UseCase)
	return conn, req, c.aiCall(caller, conn, action, req.Model, prices.OpChat, completionEstimate(req)), nil
}

// connection resolves the connection of a provider id ("" the default).
func (c *Client) connection(ctx context.Context, caller Caller, provider string) (AIConnection, error) {
	if c.ai == nil {
		return AIConnection{}, errs.Unavailable("no AI provider is configured", nil)
	}
	if provider == "" {
		provider = string(DefaultProvider)
	}
	return c.ai.AI(ctx, caller.OrganizationID, ai.ProviderID(provider))
}

func (c *Client) aiCall(caller Caller, conn AIConnection, action, model, op string, estimate prices.Units) Call {
	return Call{Caller: caller, Action: action, Provider: string(conn.Info.ID), Model: model, Operation: op, ConnectionID: conn.ID,
		BYOK: conn.BYOK, Estimate: estimate}
}

func withDefaults(c Caller, appID, useCase string) Caller {
	c.AppID, c.UseCase = firstOf(appID, c.AppID, DefaultAppID), firstOf(useCase, c.UseCase, DefaultUseCase)
	return c
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// completionRequest turns seed 001's input into the provider-neutral
// request; input no provider could take is 422 here, before anything is
// reserved.
func completionRequest(in CompletionInput, defaultMax int) (ai.CompletionRequest, error) {
	req := ai.CompletionRequest{Model: in.Model, MaxTokens: in.MaxTokens, Temperature: in.Temperature}
	if req.MaxTokens == 0 {
		req.MaxTokens = defaultMax
	}
	var fields []errs.Field
	for i, m := range in.Messages {
		msg, err := messageOf(m)
		if err != nil {
			fields = append(fields, errs.Field{Pointer: fmt.Sprintf("/messages/%d%s", i, err.pointer), Detail: err.detail})
			continue
		}
		req.Messages = append(req.Messages, msg)
	}
	if in.Prompt != nil && *in.Prompt != "" {
		req.Messages = append(req.Messages, ai.Text(ai.RoleUser, *in.Prompt))
	}
	if len(req.Messages) == 0 && len(fields) == 0 {
		fields = append(fields, errs.Field{Pointer: "/messages", Detail: "a completion needs messages or a prompt"})
	}
	for i, t := range in.Tools {
		if t.Function.Name == "" {
			fields = append(fields, errs.Field{Pointer: fmt.Sprintf("/tools/%d/function/name", i), Detail: "a tool needs a name"})
			continue
		}
		req.Tools = append(req.Tools, ai.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	if rf := in.ResponseFormat; rf != nil {
		schema := rf.JSONSchema.Schema
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object"}`) // seed 001: the schema is optional; any object then
		}
		req.ResponseFormat = &ai.ResponseFormat{Name: rf.JSONSchema.Name, Schema: schema, Strict: rf.JSONSchema.Strict}
	}
	if len(fields) > 0 {
		return req, errs.Invalid(fields...)
	}
	if err := ai.CheckCompletion("", ai.CapChat|ai.CapStream|ai.CapTools|ai.CapStructuredOutput|ai.CapVision, ai.CapChat, req); err != nil {
		e, _ := ai.AsError(err)
		return req, errs.InvalidField("", "the completion cannot be run: "+e.Reason)
	}
	return req, nil
}

type fieldError struct{ pointer, detail string }

func messageOf(m MessageInput) (ai.Message, *fieldError) {
	msg := ai.Message{Role: ai.Role(m.Role)}
	if m.ToolCallID != nil {
		msg.ToolCallID = *m.ToolCallID
	}
	if m.Name != nil {
		msg.Name = *m.Name
	}
	raw := strings.TrimSpace(string(m.Content))
	switch {
	case raw == "" || raw == "null":
	case strings.HasPrefix(raw, `"`):
		var s string
		if err := json.Unmarshal(m.Content, &s); err != nil {
			return msg, &fieldError{"/content", "must be a string, an array of parts or null"}
		}
		msg.Content = []ai.Part{{Text: s}}
	default:
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL *struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return msg, &fieldError{"/content", "must be a string, an array of parts or null"}
		}
		for i, p := range parts {
			switch p.Type {
			case "text":
				msg.Content = append(msg.Content, ai.Part{Text: p.Text})
			case "image_url":
				img, err := dataURLImage(p.ImageURL)
				if err != nil {
					return msg, &fieldError{fmt.Sprintf("/content/%d/image_url/url", i), err.Error()}
				}
				msg.Content = append(msg.Content, ai.Part{Image: img})
			default:
				return msg, &fieldError{fmt.Sprintf("/content/%d/type", i), "must be text or image_url"}
			}
		}
	}
	for i, tc := range m.ToolCalls {
		args := json.RawMessage(tc.Function.Arguments)
		if tc.Function.Arguments == "" {
			args = json.RawMessage(`{}`)
		} else if !json.Valid(args) {
			return msg, &fieldError{fmt.Sprintf("/tool_calls/%d/function/arguments", i), "must be a JSON object"}
		}
		msg.ToolCalls = append(msg.ToolCalls, ai.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	return msg, nil
}

// dataURLImage reads an inline image (data:image/png;base64,...): the
// gateway never makes a provider fetch a URL a tenant names.
func dataURLImage(u *struct {
	URL string `json:"url"`
}) (*ai.Image, error) {
	if u == nil {
		return nil, fmt.Errorf("an image_url part needs image_url.url")
	}
	rest, ok := strings.CutPrefix(u.URL, "data:")
	mime, data, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 || !strings.HasPrefix(mime, "image/") {
		return nil, fmt.Errorf("must be a data URL of an image (data:image/...;base64,...); remote URLs are not fetched")
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) == 0 {
		return nil, fmt.Errorf("the image data is not base64")
	}
	return &ai.Image{MIMEType: mime, Data: raw}, nil
}

func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return json.RawMessage(`{}`)
	}
	return raw
}
