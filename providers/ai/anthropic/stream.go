package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/outcome"
)

// Stream runs POST /v1/messages with stream: true. Input usage arrives in
// message_start, output usage (cumulative) in message_delta, and the
// stream is complete only at message_stop.
func (c *Client) Stream(ctx context.Context, req ai.CompletionRequest, onDelta func(ai.Delta) error) (*ai.StreamSummary, error) {
	body, err := c.messagesRequest(ai.CapStream, req)
	if err != nil {
		return nil, err
	}
	body.Stream = true
	s, err := c.call.Stream(ctx, c.request(ai.CapStream, body))
	if err != nil {
		return nil, err
	}
	defer s.Close()

	sum := &ai.StreamSummary{Model: body.Model, RequestID: s.Meta.RequestID}
	structured := structuredTool(req)
	var input, output *int64
	var cacheRead, cacheWrite int64
	settle := func() {
		var u usage
		u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens = input, output, cacheRead, cacheWrite
		sum.Usage, sum.UsageMissing = normalize(&u)
		if sum.UsageMissing { // keep what arrived: the gateway estimates the rest
			if input != nil {
				sum.Usage.InputTokens = *input + cacheRead + cacheWrite
			}
			if output != nil {
				sum.Usage.OutputTokens = *output
			}
		}
	}
	// blocks maps a content block index to what its deltas are: text, the
	// structured answer (text for the caller), or the tool call with this
	// normalized index.
	type kind struct {
		text bool
		tool int
	}
	blocks := map[int]kind{}
	tools := 0
	emit := func(d ai.Delta) error {
		if err := onDelta(d); err != nil {
			return ai.Stopped(ai.ProtocolAnthropic, err)
		}
		sum.Deltas++
		return nil
	}
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			settle()
			return sum, s.Cut() // no message_stop
		}
		if err != nil {
			settle()
			return sum, err
		}
		var e streamEvent
		if json.Unmarshal(ev.Data, &e) != nil {
			settle()
			return sum, s.Fault(ai.ReasonMalformed)
		}
		switch e.Type {
		case "message_start":
			sum.Model = ai.Pick(e.Message.Model, sum.Model)
			sum.RequestID = ai.Pick(sum.RequestID, e.Message.ID)
			if u := e.Message.Usage; u != nil {
				input, cacheRead, cacheWrite = u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens
			}
		case "content_block_start":
			b := e.ContentBlock
			switch {
			case b.Type == "text":
				blocks[e.Index] = kind{text: true}
				if b.Text != "" {
					if err := emit(ai.Delta{Text: b.Text}); err != nil {
						settle()
						return sum, err
					}
				}
			case b.Type == "tool_use" && structured != "" && b.Name == structured:
				blocks[e.Index] = kind{text: true}
			case b.Type == "tool_use":
				blocks[e.Index] = kind{tool: tools}
				if err := emit(ai.Delta{ToolCall: &ai.ToolCallDelta{Index: tools, ID: b.ID, Name: b.Name}}); err != nil {
					settle()
					return sum, err
				}
				tools++
			default: // thinking and other blocks the gateway does not relay
				blocks[e.Index] = kind{tool: -1}
			}
		case "content_block_delta":
			k, ok := blocks[e.Index]
			var d ai.Delta
			switch {
			case !ok || (!k.text && k.tool < 0):
				continue
			case e.Delta.Type == "text_delta" && k.text:
				d.Text = e.Delta.Text
			case e.Delta.Type == "input_json_delta" && k.text:
				d.Text = e.Delta.PartialJSON
			case e.Delta.Type == "input_json_delta":
				d.ToolCall = &ai.ToolCallDelta{Index: k.tool, Arguments: e.Delta.PartialJSON}
			default:
				continue
			}
			if d.Text == "" && d.ToolCall == nil {
				continue
			}
			if err := emit(d); err != nil {
				settle()
				return sum, err
			}
		case "message_delta":
			if e.Delta.StopReason != "" {
				sum.FinishReason = finishReason(e.Delta.StopReason)
				if e.Delta.StopReason == "tool_use" && tools == 0 && structured != "" {
					sum.FinishReason = ai.FinishStop
				}
			}
			if u := e.Usage; u != nil {
				if u.OutputTokens != nil {
					output = u.OutputTokens
				}
				if u.InputTokens != nil { // newer API versions repeat the input here
					input = u.InputTokens
				}
			}
		case "message_stop":
			settle()
			if sum.UsageMissing {
				return sum, s.Fault(ai.ReasonUsageMissing)
			}
			return sum, nil
		case "error":
			settle()
			f := s.Fault("error event")
			f.Code = e.Error.Type
			if kindOf(e.Error.Type) == outcome.RateLimited {
				f.Kind = outcome.RateLimited
			}
			return sum, f
		}
	}
}
