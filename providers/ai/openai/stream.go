package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/platform/backend/providers/ai"
)

// Stream runs POST /chat/completions with stream: true and
// stream_options.include_usage, so the last chunk before data: [DONE]
// carries the usage.
func (c *Client) Stream(ctx context.Context, req ai.CompletionRequest, onDelta func(ai.Delta) error) (*ai.StreamSummary, error) {
	body, err := c.chatRequest(ai.CapStream, req)
	if err != nil {
		return nil, err
	}
	body.Stream, body.StreamOptions = true, &streamOptions{IncludeUsage: true}
	s, err := c.call.Stream(ctx, c.request(ai.CapStream, "/chat/completions", body))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sum := &ai.StreamSummary{Model: body.Model, RequestID: s.Meta.RequestID}
	var usageSeen bool
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
		if string(ev.Data) == "[DONE]" {
			break
		}
		var ch chatChunk
		if json.Unmarshal(ev.Data, &ch) != nil {
			sum.UsageMissing = !usageSeen
			return sum, s.Fault(ai.ReasonMalformed)
		}
		if ch.Error != nil {
			e := s.Fault("error event")
			e.Code = decodeError(0, nil, ev.Data).Code
			sum.UsageMissing = !usageSeen
			return sum, e
		}
		if ch.Model != "" {
			sum.Model = ch.Model
		}
		if sum.RequestID == "" {
			sum.RequestID = ch.ID
		}
		if ch.Usage != nil {
			sum.Usage, usageSeen = usage(*ch.Usage), true
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			if choice.FinishReason != nil {
				sum.FinishReason = finishReason(*choice.FinishReason)
			}
			var deltas []ai.Delta
			if t := choice.Delta.Content; t != nil && *t != "" {
				deltas = append(deltas, ai.Delta{Text: *t})
			}
			for _, tc := range choice.Delta.ToolCalls {
				d := &ai.ToolCallDelta{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
				if tc.Index != nil {
					d.Index = *tc.Index
				}
				deltas = append(deltas, ai.Delta{ToolCall: d})
			}
			for _, d := range deltas {
				if err := onDelta(d); err != nil {
					sum.UsageMissing = !usageSeen
					return sum, ai.Stopped(ai.ProtocolOpenAI, err)
				}
				sum.Deltas++
			}
		}
	}
	if !usageSeen {
		sum.UsageMissing = true
		return sum, s.Fault(ai.ReasonUsageMissing)
	}
	return sum, nil
}
