package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/outcome"
)

func TestCapabilitySet(t *testing.T) {
	set := ai.CapChat | ai.CapStream | ai.CapEmbeddings
	if !set.Has(ai.CapChat) || !set.Has(ai.CapChat|ai.CapStream) || set.Has(ai.CapChat|ai.CapTools) || set.Has(0) {
		t.Fatal("Has")
	}
	if got := set.String(); got != "chat|stream|embeddings" {
		t.Fatalf("String() = %q", got)
	}
	if got := len(set.List()); got != 3 || len(ai.AllCapabilities()) != 10 {
		t.Fatalf("List %d", got)
	}
}

func TestErrorClassification(t *testing.T) {
	tests := []struct {
		kind              outcome.Kind
		provider, retries bool
	}{
		{outcome.ProviderFault, true, true},
		{outcome.RateLimited, false, true},
		{outcome.Rejected, false, false},
		{outcome.Unauthorized, false, false},
		{outcome.Canceled, false, false},
		{ai.KindUnsupported, false, false},
	}
	for _, tc := range tests {
		e := &ai.Error{Kind: tc.kind}
		if e.Kind.HurtsProviderHealth() != tc.provider || e.Retryable() != tc.retries {
			t.Fatalf("%s: provider %v retryable %v", tc.kind, e.Kind.HurtsProviderHealth(), e.Retryable())
		}
	}
	if outcome.Of(nil) != "" || outcome.Of(errors.New("x")) != outcome.ProviderFault {
		t.Fatal("KindOf")
	}
}

func TestErrorMessageIsAFewWordsAndWrapsTheCause(t *testing.T) {
	e := (&ai.Error{Kind: outcome.RateLimited, Protocol: "openai", Capability: ai.CapChat, Reason: "status 429",
		Code: "rate_limit_exceeded", RetryAfter: 2 * time.Second}).WithCause(context.Canceled)
	if got := e.Error(); got != "ai openai chat: rate_limited: status 429 (rate_limit_exceeded), retry after 2s" {
		t.Fatalf("%q", got)
	}
	if !errors.Is(e, context.Canceled) || outcome.Of(fmtWrap(e)) != outcome.RateLimited {
		t.Fatal("cause or kind lost when wrapped")
	}
}

func fmtWrap(err error) error { return errors.Join(errors.New("gateway"), err) }

func TestCheckCompletionRefusesWhatTheConnectionCannotDo(t *testing.T) {
	user := []ai.Message{ai.Text(ai.RoleUser, "hi")}
	img := []ai.Message{{Role: ai.RoleUser, Content: []ai.Part{{Image: &ai.Image{MIMEType: "image/png", Data: []byte{1}}}}}}
	schema := &ai.ResponseFormat{Name: "a", Schema: json.RawMessage(`{"type":"object"}`)}
	tests := []struct {
		name  string
		caps  ai.Capability
		asked ai.Capability
		req   ai.CompletionRequest
		kind  outcome.Kind
	}{
		{"plain chat", ai.CapChat, ai.CapChat, ai.CompletionRequest{Messages: user}, ""},
		{"stream without streaming", ai.CapChat, ai.CapStream, ai.CompletionRequest{Messages: user}, ai.KindUnsupported},
		{"tools without tools", ai.CapChat, ai.CapChat, ai.CompletionRequest{Messages: user, Tools: []ai.Tool{{Name: "t"}}}, ai.KindUnsupported},
		{"schema without structured output", ai.CapChat, ai.CapChat, ai.CompletionRequest{Messages: user, ResponseFormat: schema}, ai.KindUnsupported},
		{"image without vision", ai.CapChat, ai.CapChat, ai.CompletionRequest{Messages: img}, ai.KindUnsupported},
		{"image with vision", ai.CapChat | ai.CapVision, ai.CapChat, ai.CompletionRequest{Messages: img}, ""},
		{"no messages", ai.CapChat, ai.CapChat, ai.CompletionRequest{}, outcome.Invalid},
		{"negative max tokens", ai.CapChat, ai.CapChat, ai.CompletionRequest{Messages: user, MaxTokens: -1}, outcome.Invalid},
		{"tool call arguments not an object", ai.CapChat, ai.CapChat, ai.CompletionRequest{Messages: []ai.Message{
			{Role: ai.RoleAssistant, ToolCalls: []ai.ToolCall{{Name: "t", Arguments: json.RawMessage(`"x"`)}}}}}, outcome.Invalid},
		{"response format without name", ai.CapChat | ai.CapStructuredOutput, ai.CapChat, ai.CompletionRequest{Messages: user,
			ResponseFormat: &ai.ResponseFormat{Schema: json.RawMessage(`{"type":"object"}`)}}, outcome.Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ai.CheckCompletion("p", tc.caps, tc.asked, tc.req)
			if outcome.Of(err) != tc.kind {
				t.Fatalf("%v, want kind %q", err, tc.kind)
			}
		})
	}
}

func TestTranslationCompletionAsksForExactlyTheKeys(t *testing.T) {
	req, err := ai.TranslationCompletion(ai.TranslationRequest{TargetLocale: "fr", Context: "checkout page",
		Texts: map[string]string{"b.title": "Pay", "a.body": "Total: {amount}"}})
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Type                 string
		Required             []string
		AdditionalProperties bool
		Properties           map[string]map[string]string
	}
	if err := json.Unmarshal(req.ResponseFormat.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || strings.Join(schema.Required, ",") != "a.body,b.title" || schema.AdditionalProperties ||
		schema.Properties["a.body"]["type"] != "string" || !req.ResponseFormat.Strict {
		t.Fatalf("%+v", schema)
	}
	sys, user := req.Messages[0].TextOf(), req.Messages[1].TextOf()
	if !strings.Contains(sys, "from locale en to locale fr") || !strings.Contains(sys, "checkout page") ||
		user != `{"a.body":"Total: {amount}","b.title":"Pay"}` {
		t.Fatalf("%q / %q", sys, user)
	}
	if _, err := ai.TranslationCompletion(ai.TranslationRequest{TargetLocale: "fr"}); outcome.Of(err) != outcome.Invalid {
		t.Fatalf("no texts: %v", err)
	}
}

func TestParseTranslation(t *testing.T) {
	req := ai.TranslationRequest{TargetLocale: "de", Texts: map[string]string{"a": "x", "b": "y"}}
	tests := map[string]struct {
		answer string
		ok     bool
	}{
		"exact":       {`{"a":"eins","b":"zwei"}`, true},
		"extra key":   {`{"a":"eins","b":"zwei","c":"drei"}`, true},
		"missing key": {`{"a":"eins"}`, false},
		"not string":  {`{"a":"eins","b":2}`, false},
		"not JSON":    {`Sure! Here it is`, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ai.ParseTranslation("p", req, &ai.CompletionResponse{Text: tc.answer})
			if tc.ok != (err == nil) {
				t.Fatalf("%v", err)
			}
			if err != nil && outcome.Of(err) != outcome.ProviderFault {
				t.Fatalf("kind %s", outcome.Of(err))
			}
			if tc.ok && (got["a"] != "eins" || len(got) != 2) {
				t.Fatalf("%v", got)
			}
		})
	}
}

func TestDescriptionCompletionSniffsTheImageType(t *testing.T) {
	req := ai.DescriptionCompletion(ai.ImageDescriptionRequest{Image: ai.Image{Data: []byte("\xff\xd8\xff\xe0\x00\x10JFIF")}, MaxTokens: 50})
	img := req.Messages[0].Content[0].Image
	if img.MIMEType != "image/jpeg" || req.Messages[0].TextOf() != ai.DefaultDescribePrompt || req.MaxTokens != 50 {
		t.Fatalf("%+v", req)
	}
}

func TestRegistryOrderAndLookup(t *testing.T) {
	ps := ai.Providers()
	if len(ps) != 5 {
		t.Fatalf("%d providers", len(ps))
	}
	for i, p := range ps {
		if want := ai.ProviderID("ai_provider_" + string(rune('1'+i))); p.ID != want {
			t.Fatalf("position %d is %s", i, p.ID)
		}
		if got, err := ai.Lookup(p.ID); err != nil || got.Name != p.Name {
			t.Fatalf("Lookup(%s) = %v", p.ID, err)
		}
	}
	if _, err := ai.Lookup("openai"); err == nil {
		t.Fatal("a protocol name is not a provider id")
	}
}

func TestModelsForCompletion(t *testing.T) {
	m := ai.Models{Chat: "text", Vision: "eyes"}
	img := ai.CompletionRequest{Messages: []ai.Message{{Role: ai.RoleUser, Content: []ai.Part{{Image: &ai.Image{}}}}}}
	if m.ForCompletion(ai.CompletionRequest{}) != "text" || m.ForCompletion(img) != "eyes" ||
		m.ForCompletion(ai.CompletionRequest{Model: "mine"}) != "mine" || (ai.Models{Chat: "text"}).ForCompletion(img) != "text" {
		t.Fatal("model choice")
	}
}

func TestUsageAdd(t *testing.T) {
	got := ai.Usage{InputTokens: 1, OutputTokens: 2, Images: 1, AudioSeconds: 1.5}.Add(ai.Usage{InputTokens: 3, InputCharacters: 7, AudioSeconds: 1})
	if got != (ai.Usage{InputTokens: 4, OutputTokens: 2, InputCharacters: 7, AudioSeconds: 2.5, Images: 1}) {
		t.Fatalf("%+v", got)
	}
}
