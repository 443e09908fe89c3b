package anthropic

import "encoding/json"

// Messages API wire types (POST /v1/messages).

type messagesRequest struct {
	Model       string      `json:"model"`
	MaxTokens   int         `json:"max_tokens"`
	System      string      `json:"system,omitempty"`
	Messages    []message   `json:"messages"`
	Temperature *float64    `json:"temperature,omitempty"`
	Tools       []tool      `json:"tools,omitempty"`
	ToolChoice  *toolChoice `json:"tool_choice,omitempty"`
	Stream      bool        `json:"stream,omitempty"`
}

type message struct {
	Role    string  `json:"role"` // "user" | "assistant"
	Content []block `json:"content"`
}

// block is a content block; which members are set depends on Type.
type block struct {
	Type      string          `json:"type"` // text | image | tool_use | tool_result
	Text      string          `json:"text,omitempty"`
	Source    *imageSource    `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type toolChoice struct {
	Type string `json:"type"` // auto | any | tool | none
	Name string `json:"name,omitempty"`
}

type messagesResponse struct {
	ID         string          `json:"id"`
	Model      string          `json:"model"`
	Content    []responseBlock `json:"content"`
	StopReason string          `json:"stop_reason"`
	Usage      *usage          `json:"usage"`
}

type responseBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type usage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheCreationInputTokens int64  `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64  `json:"cache_read_input_tokens"`
}

// streamEvent is any SSE event's data; Type says which members are set.
type streamEvent struct {
	Type         string           `json:"type"`
	Message      messagesResponse `json:"message"`       // message_start
	Index        int              `json:"index"`         // content_block_*
	ContentBlock responseBlock    `json:"content_block"` // content_block_start
	Delta        struct {
		Type        string `json:"type"` // text_delta | input_json_delta | thinking_delta ...
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"` // message_delta
	} `json:"delta"`
	Usage *usage `json:"usage"` // message_delta
	Error struct {
		Type string `json:"type"`
	} `json:"error"`
}
