package ai

import (
	"encoding/base64"
	"encoding/json"
)

// Role is who speaks a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool" // a tool's result, answering ToolCallID
)

// Message is one turn of a conversation.
type Message struct {
	Role       Role
	Content    []Part     // text and images; may be empty for an assistant turn that only calls tools
	ToolCalls  []ToolCall // assistant turns: the tools the model called
	ToolCallID string     // tool turns: the call this result answers
	Name       string     // tool turns: the tool's name (Gemini needs it; found from the call when empty)
}

// Text builds a message holding one text part.
func Text(role Role, text string) Message {
	return Message{Role: role, Content: []Part{{Text: text}}}
}

// TextOf joins the text parts of a message.
func (m Message) TextOf() string {
	var s string
	for _, p := range m.Content {
		if p.Image == nil {
			s += p.Text
		}
	}
	return s
}

// Part is a piece of a message: text, or an image when Image is set.
type Part struct {
	Text  string
	Image *Image
}

// Image is an inline image (bytes, not a URL: the gateway never makes a
// provider fetch a tenant-supplied URL).
type Image struct {
	MIMEType string // image/png, image/jpeg, image/webp, image/gif
	Data     []byte
}

// DataURL writes the image as a data: URL (how OpenAI-style APIs take
// inline images).
func (i Image) DataURL() string {
	return "data:" + i.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(i.Data)
}

// Tool is a function the model may call. Parameters is a JSON Schema object.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ToolCall is a call the model made. Arguments is JSON: an object when the
// model behaved; text that was not JSON arrives as a JSON string.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
	// Signature is opaque protocol state the provider wants back with the
	// call in the next turn (Gemini's thoughtSignature, without which
	// thinking models refuse the follow-up). Pass it back untouched.
	Signature string
}

// ResponseFormat asks for structured output: a JSON value matching Schema
// (a JSON Schema whose root is an object).
type ResponseFormat struct {
	Name   string
	Schema json.RawMessage
	Strict bool
}

// CompletionRequest is a chat completion in the gateway's terms (seed:
// ai.completions.create).
type CompletionRequest struct {
	Model          string // empty: the connection's default (Models)
	Messages       []Message
	MaxTokens      int      // 0: the provider's default (Anthropic requires one; its adapter fills it)
	Temperature    *float64 // nil: the provider's default
	Tools          []Tool
	ResponseFormat *ResponseFormat
}

// HasImages reports whether any message carries an image.
func (r CompletionRequest) HasImages() bool {
	for _, m := range r.Messages {
		for _, p := range m.Content {
			if p.Image != nil {
				return true
			}
		}
	}
	return false
}

// FinishReason is why the model stopped, normalized across protocols.
type FinishReason string

const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
	FinishOther         FinishReason = "other"
)

// CompletionResponse is a whole answer. With a ResponseFormat, Text holds the
// JSON value (also on Anthropic, where it travels as a forced tool call).
type CompletionResponse struct {
	Text         string
	ToolCalls    []ToolCall
	FinishReason FinishReason
	Model        string // the model that answered, as the provider names it
	RequestID    string // the provider's id for this call (header or body)
	Usage        Usage
	// UsageMissing: the provider answered without usage; the gateway
	// settles at an estimate.
	UsageMissing bool
}

// Delta is one piece of a streamed answer: text, or a fragment of a tool call.
type Delta struct {
	Text     string
	ToolCall *ToolCallDelta
}

// ToolCallDelta is a fragment of the tool call at Index: the first fragment
// of a call carries ID and Name, later ones only more Arguments text.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
	Signature string // see ToolCall.Signature
}

// StreamSummary is what a stream leaves once it ends: never the text (that
// went to the caller, delta by delta), but what metering needs.
type StreamSummary struct {
	Model        string
	RequestID    string
	FinishReason FinishReason
	Usage        Usage
	// UsageMissing: the stream ended (cleanly or not) without the provider's
	// final usage; Usage holds whatever partial counts arrived. The gateway
	// settles at an estimate.
	UsageMissing bool
	// Deltas counts the deltas handed to the caller.
	Deltas int
}
