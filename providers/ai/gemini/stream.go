package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/platform/backend/providers/ai"
)

// Stream runs models/{model}:streamGenerateContent?alt=sse. Each event is a
// whole GenerateContentResponse; the one carrying finishReason is the last
// (the stream then just closes), and usageMetadata on it holds the totals.
// A stream that closes before a finishReason was cut.
func (c *Client) Stream(ctx context.Context, req ai.CompletionRequest, onDelta func(ai.Delta) error) (*ai.StreamSummary, error) {
	model, body, err := c.generateRequest(ai.CapStream, req)
	if err != nil {
		return nil, err
	}
	r := c.request(ai.CapStream, model, "streamGenerateContent", body)
	r.URL += "?alt=sse"
	s, err := c.call.Stream(ctx, r)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sum := &ai.StreamSummary{Model: model}
	var finished, usageFinal bool
	tools := 0
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			sum.UsageMissing = !usageFinal
			if !finished {
				return sum, s.Cut()
			}
			if !usageFinal {
				return sum, s.Fault(ai.ReasonUsageMissing)
			}
			return sum, nil
		}
		if err != nil {
			sum.UsageMissing = true
			return sum, err
		}
		var chunk generateResponse
		var failed errorBody
		if json.Unmarshal(ev.Data, &chunk) != nil || json.Unmarshal(ev.Data, &failed) != nil {
			sum.UsageMissing = true
			return sum, s.Fault(ai.ReasonMalformed)
		}
		if failed.Error.Status != "" {
			sum.UsageMissing = true
			f := s.Fault("error event")
			up := failed.upstream()
			f.Code = up.Code
			if up.Kind != "" {
				f.Kind = up.Kind
			}
			return sum, f
		}
		sum.Model = ai.Pick(chunk.ModelVersion, sum.Model)
		sum.RequestID = ai.Pick(chunk.ResponseID, sum.RequestID)
		if chunk.UsageMetadata != nil {
			sum.Usage = chunk.UsageMetadata.usage()
			usageFinal = finished
		}
		for _, cand := range chunk.Candidates[:min(len(chunk.Candidates), 1)] {
			for _, p := range cand.Content.Parts {
				var d ai.Delta
				switch {
				case p.FunctionCall != nil:
					tc := toolCall(*p.FunctionCall, tools)
					d.ToolCall = &ai.ToolCallDelta{Index: tools, ID: tc.ID, Name: tc.Name, Arguments: string(tc.Arguments),
						Signature: p.ThoughtSignature}
					tools++
				case !p.Thought && p.Text != "":
					d.Text = p.Text
				default:
					continue
				}
				if err := onDelta(d); err != nil {
					sum.UsageMissing = true
					return sum, ai.Stopped(ai.ProtocolGemini, err)
				}
				sum.Deltas++
			}
			if cand.FinishReason != "" {
				finished = true
				sum.FinishReason = finishReason(cand.FinishReason, tools > 0)
				usageFinal = chunk.UsageMetadata != nil
			}
		}
		if len(chunk.Candidates) == 0 && chunk.PromptFeedback != nil && chunk.PromptFeedback.BlockReason != "" {
			finished, sum.FinishReason = true, ai.FinishContentFilter
			usageFinal = chunk.UsageMetadata != nil
		}
	}
}
