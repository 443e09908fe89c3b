package workersai

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/platform/backend/providers/ai"
)

// streamChunk is one SSE event of a text-generation model: a piece of the
// response, and on the last one before data: [DONE] the usage.
type streamChunk struct {
	Response  *string          `json:"response"`
	ToolCalls []resultToolCall `json:"tool_calls"`
	Usage     *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// Stream runs the model with stream: true.
func (c *Client) Stream(ctx context.Context, req ai.CompletionRequest, onDelta func(ai.Delta) error) (*ai.StreamSummary, error) {
	model, body, err := c.chatRequest(ai.CapStream, req)
	if err != nil {
		return nil, err
	}
	body.Stream = true
	r, err := c.run(ai.CapStream, model, body)
	if err != nil {
		return nil, err
	}
	s, err := c.call.Stream(ctx, r)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sum := &ai.StreamSummary{Model: model, RequestID: s.Meta.RequestID}
	usageSeen, tools := false, 0
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			sum.UsageMissing = !usageSeen
			return sum, s.Cut() // no data: [DONE]
		}
		if err != nil {
			sum.UsageMissing = !usageSeen
			return sum, err
		}
		if string(ev.Data) == "[DONE]" { // the API reports no finish reason: told from what came
			sum.FinishReason = ai.FinishStop
			if tools > 0 {
				sum.FinishReason = ai.FinishToolCalls
			}
			break
		}
		var ch streamChunk
		if json.Unmarshal(ev.Data, &ch) != nil {
			sum.UsageMissing = !usageSeen
			return sum, s.Fault(ai.ReasonMalformed)
		}
		if u := ch.Usage; u != nil {
			sum.Usage, usageSeen = ai.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}, true
		}
		var deltas []ai.Delta
		if ch.Response != nil && *ch.Response != "" {
			deltas = append(deltas, ai.Delta{Text: *ch.Response})
		}
		for _, tc := range ch.ToolCalls {
			call := tc.normalize(tools)
			deltas = append(deltas, ai.Delta{ToolCall: &ai.ToolCallDelta{Index: tools, ID: call.ID, Name: call.Name, Arguments: string(call.Arguments)}})
			tools++
		}
		for _, d := range deltas {
			if err := onDelta(d); err != nil {
				sum.UsageMissing = !usageSeen
				return sum, ai.Stopped(ai.ProtocolWorkersAI, err)
			}
			sum.Deltas++
		}
	}
	if !usageSeen {
		sum.UsageMissing = true
		return sum, s.Fault(ai.ReasonUsageMissing)
	}
	return sum, nil
}
