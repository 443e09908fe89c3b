package gateway

import (
	"context"
	"errors"
	"math"
	"unicode/utf8"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/outcome"
)

// aiAttempt classifies what an AI call left: the outcome the usage event
// records (and health counts), its units, the provider's request id.
// callCtx is the call's own context: when its deadline (the gateway's
// stream bound) ended the call and the caller is still there, it is the
// provider's timeout, not the caller's cancel.
func aiAttempt(ctx, callCtx context.Context, err error, usage ai.Usage, requestID string) Attempt {
	a := Attempt{Units: unitsOf(usage), ProviderRequestID: requestID, Outcome: domain.OutcomeOK}
	if err == nil {
		return a
	}
	e, ok := ai.AsError(err)
	if !ok {
		e = &ai.Error{Kind: outcome.Of(err), Reason: "provider error"}
	}
	if e.RequestID != "" {
		a.ProviderRequestID = e.RequestID
	}
	a.Error, a.Outcome = e.Reason, outcomeOf(e.Kind, e.Reason == ai.ReasonTimeout)
	switch {
	case e.Kind == outcome.RateLimited:
		a.RetryAfter = e.RetryAfter
	case e.Kind == outcome.ProviderFault && (e.Reason == ai.ReasonStreamCut || e.Reason == ai.ReasonUsageMissing):
		a.Outcome, a.Partial = domain.OutcomeCut, true
	case e.Kind == outcome.Canceled && ctx.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded):
		a.Outcome, a.Error = domain.OutcomeTimeout, ai.ReasonTimeout
	}
	return a
}

// meterAI runs one AI call through the metered path: do calls the
// provider, usage reads what its answer consumed and the provider's request
// id. A successful per-call operation counts the calls its estimate names.
// The answer comes back with the attempt's problem (nil on success).
func meterAI[R any](ctx context.Context, c *Client, call Call, do func(ctx context.Context) (*R, error),
	usage func(*R) (ai.Usage, string)) (Receipt, *R, error) {
	var resp *R
	receipt, a, err := c.h.Metered(ctx, call, func(ctx context.Context) Attempt {
		var err error
		resp, err = do(ctx)
		u, id := ai.Usage{}, ""
		if resp != nil {
			u, id = usage(resp)
		}
		a := aiAttempt(ctx, ctx, err, u, id)
		if err == nil {
			a.Units.Calls = call.Estimate.Calls
		}
		return a
	})
	if err != nil {
		return Receipt{}, nil, err
	}
	return receipt, resp, Problem(receipt, a)
}

func completionUsage(r *ai.CompletionResponse) (ai.Usage, string) { return r.Usage, r.RequestID }

// unitsOf reads a provider's usage as raw units.
func unitsOf(u ai.Usage) prices.Units {
	return prices.Units{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, Characters: u.InputCharacters,
		AudioMS: int64(math.Ceil(u.AudioSeconds * 1000)), Images: int64(u.Images)}
}

// Estimates: a worst case of what a call can consume, which is what is
// reserved. A token is at least one byte of input for every tokenizer in
// use, so bytes bound input tokens; output is bounded by max tokens, which
// every completion sends.
const (
	perMessageTokens = 8    // role and framing per message
	perRequestTokens = 16   // the request's own framing
	perImageTokens   = 2000 // above what any provider bills for one image
)

// completionEstimate bounds a completion's units.
func completionEstimate(req ai.CompletionRequest) prices.Units {
	in := int64(perRequestTokens)
	for _, m := range req.Messages {
		in += perMessageTokens + int64(len(m.ToolCallID)+len(m.Name))
		for _, p := range m.Content {
			if p.Image != nil {
				in += perImageTokens
			} else {
				in += int64(len(p.Text))
			}
		}
		for _, tc := range m.ToolCalls {
			in += int64(len(tc.ID) + len(tc.Name) + len(tc.Arguments))
		}
	}
	for _, t := range req.Tools {
		in += int64(len(t.Name)+len(t.Description)+len(t.Parameters)) + perMessageTokens
	}
	if rf := req.ResponseFormat; rf != nil {
		in += int64(len(rf.Name)+len(rf.Schema)) + perMessageTokens
	}
	return prices.Units{InputTokens: in, OutputTokens: int64(req.MaxTokens)}
}

// textsEstimate bounds an embedding of texts: tokens by bytes, characters
// by code points (providers bill one or the other).
func textsEstimate(texts []string) prices.Units {
	var u prices.Units
	for _, t := range texts {
		u.InputTokens += int64(len(t)) + perMessageTokens
		u.Characters += int64(utf8.RuneCountInString(t))
	}
	return u
}
