package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
)

// Harness starts an adapter against its fake.
type Harness struct {
	// Start runs a fake until the test ends and returns an adapter talking
	// to it with the given timeout, and the fake's kit.
	Start func(t *testing.T, timeout time.Duration) (ai.Provider, *aifake.Kit)
	// RequestIDInBodyOnly: the protocol names a call in its answer's body
	// only (Gemini's responseId), so a stream broken before its first
	// event has none.
	RequestIDInBodyOnly bool
}

// Timeouts: generous for calls that must succeed on a loaded machine,
// short for calls that must time out.
const (
	callTimeout  = 10 * time.Second
	shortTimeout = 150 * time.Millisecond
)

// Run runs the whole suite.
func Run(t *testing.T, h Harness) {
	t.Run("operations succeed", func(t *testing.T) { runSuccess(t, h) })
	t.Run("faults are classified", func(t *testing.T) { runFaults(t, h) })
	t.Run("unsupported fails before the network", func(t *testing.T) { runUnsupported(t, h) })
	t.Run("stream", func(t *testing.T) { runStream(t, h) })
	t.Run("caller cancel is not a provider fault", func(t *testing.T) { runCancel(t, h) })
}

func supported(p ai.Provider) []Op {
	var out []Op
	for _, op := range Ops() {
		if p.Capabilities().Has(op.Cap) {
			out = append(out, op)
		}
	}
	return out
}

func runSuccess(t *testing.T, h Harness) {
	p, kit := h.Start(t, callTimeout)
	for _, op := range supported(p) {
		t.Run(op.Cap.String(), func(t *testing.T) {
			before := len(kit.Requests())
			got, err := op.Run(context.Background(), p)
			if err != nil {
				t.Fatalf("%v", err)
			}
			if n := len(kit.Requests()) - before; n != 1 {
				t.Fatalf("%d requests reached the fake, want 1", n)
			}
			checkSuccess(t, op.Cap, got)
		})
	}
}

func checkSuccess(t *testing.T, c ai.Capability, got any) {
	t.Helper()
	switch r := got.(type) {
	case *ai.CompletionResponse:
		if r.Model == "" || r.RequestID == "" || r.UsageMissing {
			t.Fatalf("model %q, request id %q, usage missing %v", r.Model, r.RequestID, r.UsageMissing)
		}
		switch c {
		case ai.CapChat:
			if r.Text != WantText || r.FinishReason != ai.FinishStop {
				t.Fatalf("text %q finish %q", r.Text, r.FinishReason)
			}
			if r.Usage.InputTokens != WantInputTokens || r.Usage.OutputTokens != WantOutputTokens {
				t.Fatalf("usage %+v, want %d in %d out", r.Usage, WantInputTokens, WantOutputTokens)
			}
		case ai.CapTools:
			if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != WeatherTool.Name || r.FinishReason != ai.FinishToolCalls {
				t.Fatalf("tool calls %+v finish %q", r.ToolCalls, r.FinishReason)
			}
			var args map[string]string
			if err := json.Unmarshal(r.ToolCalls[0].Arguments, &args); err != nil || args["city"] != "fake city" {
				t.Fatalf("arguments %s", r.ToolCalls[0].Arguments)
			}
			if r.ToolCalls[0].ID == "" {
				t.Fatal("tool call without id")
			}
		case ai.CapVision:
			if r.Text != "echo: what is this" {
				t.Fatalf("text %q", r.Text)
			}
			if want := int64(aifake.Words("what is this") + aifake.ImageTokens); r.Usage.InputTokens != want {
				t.Fatalf("input tokens %d, want %d (words + one image)", r.Usage.InputTokens, want)
			}
		}
	case StreamResult:
		s := r.Summary
		if r.Text != WantText || r.Deltas != len(aifake.Pieces(WantText)) || s.Deltas != r.Deltas {
			t.Fatalf("text %q in %d deltas (summary %d)", r.Text, r.Deltas, s.Deltas)
		}
		if s.UsageMissing || s.Usage.InputTokens != WantInputTokens || s.Usage.OutputTokens != WantOutputTokens {
			t.Fatalf("summary %+v", s)
		}
		if s.Model == "" || s.RequestID == "" || s.FinishReason != ai.FinishStop {
			t.Fatalf("summary %+v", s)
		}
	case *ai.TranslationResult:
		if len(r.Texts) != len(Translation.Texts) || r.Texts["greeting"] == "" || r.Texts["farewell"] == "" {
			t.Fatalf("translations %v", r.Texts)
		}
		if r.Response.Usage.InputTokens == 0 || r.Response.Usage.OutputTokens == 0 {
			t.Fatalf("usage %+v", r.Response.Usage)
		}
	case *ai.EmbeddingResponse:
		if len(r.Vectors) != 2 || len(r.Vectors[0]) == 0 || len(r.Vectors[0]) != len(r.Vectors[1]) {
			t.Fatalf("vectors %d", len(r.Vectors))
		}
		if r.Usage.InputTokens == 0 && r.Usage.InputCharacters == 0 {
			t.Fatalf("usage %+v", r.Usage)
		}
	case *ai.TranscriptionResponse:
		if r.Text != aifake.Transcript(len(Audio)) || r.Usage.AudioSeconds != 2 || r.RequestID == "" {
			t.Fatalf("%+v", r)
		}
	case *ai.MarkdownResponse:
		if len(r.Documents) != 2 || r.Documents[0].Name != "notes.txt" || r.Documents[0].Markdown == "" || r.Documents[0].Tokens == 0 {
			t.Fatalf("%+v", r.Documents)
		}
		if r.Usage.OutputTokens != r.Documents[0].Tokens+r.Documents[1].Tokens {
			t.Fatalf("usage %+v", r.Usage)
		}
	case *ai.RAGSearchResponse:
		if len(r.Results) == 0 || len(r.Results) > 5 || r.SearchQuery == "" || r.Results[0].Text == "" {
			t.Fatalf("%+v", r)
		}
		for _, res := range r.Results {
			if res.Score < 0.5 {
				t.Fatalf("result under the score threshold: %+v", res)
			}
		}
	case *ai.ImageResponse:
		if len(r.Images) != 1 || len(r.Images[0].Data) == 0 || r.Images[0].MIMEType != "image/png" || r.Usage.Images != 1 {
			t.Fatalf("%+v", r)
		}
	default:
		t.Fatalf("unexpected result %T", got)
	}
}

// faultCase is one scripted fault and the classification it must get.
type faultCase struct {
	name   string
	fault  fakekit.Fault
	kind   outcome.Kind
	retry  time.Duration
	reason string
}

func faultCases() []faultCase {
	return []faultCase{
		{name: "400", fault: fakekit.Status(http.StatusBadRequest), kind: outcome.Rejected},
		{name: "404", fault: fakekit.Status(http.StatusNotFound), kind: outcome.Rejected},
		{name: "422", fault: fakekit.Status(http.StatusUnprocessableEntity), kind: outcome.Rejected},
		{name: "401", fault: fakekit.Status(http.StatusUnauthorized), kind: outcome.Unauthorized},
		{name: "403", fault: fakekit.Status(http.StatusForbidden), kind: outcome.Unauthorized},
		{name: "429", fault: fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 3 * time.Second}, kind: outcome.RateLimited, retry: 3 * time.Second},
		{name: "500", fault: fakekit.Status(http.StatusInternalServerError), kind: outcome.ProviderFault},
		{name: "503", fault: fakekit.Status(http.StatusServiceUnavailable), kind: outcome.ProviderFault},
		{name: "529", fault: fakekit.Status(529), kind: outcome.ProviderFault},
		{name: "malformed", fault: fakekit.Fault{Kind: fakekit.Malformed}, kind: outcome.ProviderFault, reason: ai.ReasonMalformed},
		{name: "cut", fault: fakekit.Fault{Kind: fakekit.Cut, After: 1}, kind: outcome.ProviderFault},
		{name: "hang", fault: fakekit.Fault{Kind: fakekit.Hang}, kind: outcome.ProviderFault, reason: ai.ReasonTimeout},
	}
}

func runFaults(t *testing.T, h Harness) {
	p, kit := h.Start(t, callTimeout)
	short, shortKit := h.Start(t, shortTimeout)
	for _, op := range supported(p) {
		for _, fc := range faultCases() {
			t.Run(op.Cap.String()+"/"+fc.name, func(t *testing.T) {
				p, kit := p, kit
				if fc.fault.Kind == fakekit.Hang {
					p, kit = short, shortKit
				}
				kit.Next(1, fc.fault)
				start := time.Now()
				_, err := op.Run(context.Background(), p)
				checkError(t, err, fc.kind, fc.reason)
				e, _ := ai.AsError(err)
				if e.RetryAfter != fc.retry {
					t.Fatalf("retry after %s, want %s", e.RetryAfter, fc.retry)
				}
				if fc.fault.Kind == fakekit.Hang && time.Since(start) > 5*time.Second {
					t.Fatalf("hang took %s to give up", time.Since(start))
				}
				if fc.fault.Status != 0 && e.Status == 0 {
					t.Fatal("status not kept")
				}
				// The next call succeeds again: the fault was for one call.
				if _, err := op.Run(context.Background(), p); err != nil {
					t.Fatalf("call after the fault: %v", err)
				}
			})
		}
	}
}

// checkError asserts err is an *ai.Error of kind (and reason, when given)
// whose message is a few words, not the upstream body.
func checkError(t *testing.T, err error, kind outcome.Kind, reason string) {
	t.Helper()
	e, ok := ai.AsError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not an *ai.Error", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("kind %q (%v), want %q", e.Kind, e, kind)
	}
	if reason != "" && e.Reason != reason {
		t.Fatalf("reason %q, want %q", e.Reason, reason)
	}
	if msg := e.Error(); strings.Contains(msg, aifake.SecretMarker) || len(msg) > 160 {
		t.Fatalf("message carries the upstream body or is too long: %q", msg)
	}
	if e.Kind.HurtsProviderHealth() != (kind == outcome.ProviderFault) {
		t.Fatal("health classification disagrees with the kind")
	}
}

func runUnsupported(t *testing.T, h Harness) {
	p, kit := h.Start(t, callTimeout)
	for _, op := range Ops() {
		if p.Capabilities().Has(op.Cap) {
			continue
		}
		t.Run(op.Cap.String(), func(t *testing.T) {
			before := len(kit.Requests())
			_, err := op.Run(context.Background(), p)
			checkError(t, err, ai.KindUnsupported, "")
			if n := len(kit.Requests()) - before; n != 0 {
				t.Fatalf("%d requests reached the fake", n)
			}
		})
	}
}

func runStream(t *testing.T, h Harness) {
	p, kit := h.Start(t, callTimeout)
	if !p.Capabilities().Has(ai.CapStream) {
		t.Skip("no streaming")
	}
	t.Run("delta 1 reaches the caller before the fake sends delta 2", func(t *testing.T) {
		gate := kit.HoldDeltas()
		defer kit.Reset()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var sentAtFirst = -1
		_, err := p.Stream(ctx, ChatRequest(), func(d ai.Delta) error {
			if sentAtFirst < 0 {
				sentAtFirst = gate.Passed()
				gate.Open()
			}
			return nil
		})
		if err != nil {
			t.Fatalf("stream: %v (a client that buffers the answer waits for delta 2 forever)", err)
		}
		if sentAtFirst != 1 {
			t.Fatalf("the fake had sent %d deltas when the caller got the first, want 1", sentAtFirst)
		}
	})
	t.Run("tool call deltas", func(t *testing.T) {
		req := ChatRequest()
		req.Tools = []ai.Tool{WeatherTool}
		res, err := Collect(context.Background(), p, req)
		if err != nil {
			t.Fatal(err)
		}
		tc := res.ToolCalls[0]
		if tc == nil || tc.Name != WeatherTool.Name || tc.ID == "" {
			t.Fatalf("tool calls %+v", res.ToolCalls)
		}
		var args map[string]string
		if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil || args["city"] != "fake city" {
			t.Fatalf("joined arguments %q", tc.Arguments)
		}
		if res.Summary.FinishReason != ai.FinishToolCalls || res.Summary.UsageMissing {
			t.Fatalf("summary %+v", res.Summary)
		}
	})
	cases := []struct {
		name   string
		fault  fakekit.Fault
		reason string
	}{
		{"connection dropped mid-stream", fakekit.Fault{Kind: fakekit.Cut, After: 3}, ai.ReasonStreamCut},
		{"clean end before the terminator", fakekit.Fault{Kind: aifake.EndEarly, After: 3}, ai.ReasonStreamCut},
		{"malformed event", fakekit.Fault{Kind: fakekit.Malformed}, ai.ReasonMalformed},
		{"no final usage", fakekit.Fault{Kind: aifake.NoUsage}, ai.ReasonUsageMissing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kit.Next(1, tc.fault)
			res, err := Collect(context.Background(), p, ChatRequest())
			checkError(t, err, outcome.ProviderFault, tc.reason)
			if res.Summary == nil || !res.Summary.UsageMissing || (res.Summary.RequestID == "" && !h.RequestIDInBodyOnly) {
				t.Fatalf("summary %+v: must say usage is missing and keep the request id", res.Summary)
			}
			if tc.fault.Kind == aifake.NoUsage && res.Text != WantText {
				t.Fatalf("deltas before the end %q", res.Text)
			}
			if tc.fault.Kind == fakekit.Cut && res.Deltas == 0 {
				t.Fatal("the deltas before the cut never reached the caller")
			}
		})
	}
	t.Run("silence past the timeout is the provider's", func(t *testing.T) {
		short, kit := h.Start(t, shortTimeout)
		kit.SetDelay(10 * shortTimeout)
		res, err := Collect(context.Background(), short, ChatRequest())
		checkError(t, err, outcome.ProviderFault, ai.ReasonTimeout)
		if res.Deltas != 1 || !res.Summary.UsageMissing {
			t.Fatalf("deltas %d summary %+v", res.Deltas, res.Summary)
		}
	})
}

func runCancel(t *testing.T, h Harness) {
	p, kit := h.Start(t, callTimeout)
	for _, op := range supported(p) {
		t.Run("deadline while the provider hangs/"+op.Cap.String(), func(t *testing.T) {
			kit.Next(1, fakekit.Fault{Kind: fakekit.Hang})
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			_, err := op.Run(ctx, p)
			checkError(t, err, outcome.Canceled, ai.ReasonCanceled)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%v does not wrap the caller's deadline", err)
			}
		})
	}
	if !p.Capabilities().Has(ai.CapStream) {
		return
	}
	t.Run("cancel mid-stream", func(t *testing.T) {
		kit.SetDelay(20 * time.Millisecond)
		defer kit.Reset()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sum, err := p.Stream(ctx, ChatRequest(), func(ai.Delta) error { cancel(); return nil })
		checkError(t, err, outcome.Canceled, "")
		if sum == nil || sum.Deltas != 1 {
			t.Fatalf("summary %+v", sum)
		}
	})
	t.Run("callback stops the stream", func(t *testing.T) {
		stop := errors.New("client went away")
		sum, err := p.Stream(context.Background(), ChatRequest(), func(ai.Delta) error { return stop })
		checkError(t, err, outcome.Canceled, "")
		if !errors.Is(err, stop) || sum == nil || sum.Deltas != 0 {
			t.Fatalf("err %v summary %+v", err, sum)
		}
	})
}
