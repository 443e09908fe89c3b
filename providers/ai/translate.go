package ai

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/platform/backend/providers/outcome"
)

// TranslationRequest is the seed's ai.translations.create as a provider call:
// the gateway runs it as one completion with structured output, so every
// protocol with CapStructuredOutput can translate.
type TranslationRequest struct {
	Model        string
	SourceLocale string // default "en"
	TargetLocale string
	Namespace    string // default "common"
	Context      string // what the strings are for; may be empty
	Texts        map[string]string
	MaxTokens    int
}

// TranslationResult holds one translated text per input key, and the
// completion it came from (usage, model, request id).
type TranslationResult struct {
	Texts    map[string]string
	Response *CompletionResponse
}

// TranslationSchemaName names the structured output (and, on Anthropic, the
// forced tool).
const TranslationSchemaName = "translations"

// TranslationCompletion builds the completion for a translation: the texts
// go as a JSON object, the answer must be an object with exactly the same
// keys, each a string (a JSON Schema with one required property per key).
func TranslationCompletion(req TranslationRequest) (CompletionRequest, error) {
	if len(req.Texts) == 0 || req.TargetLocale == "" {
		return CompletionRequest{}, Invalid("", CapStructuredOutput, "translation needs texts and a target locale")
	}
	source := Pick(req.SourceLocale, "en")
	namespace := Pick(req.Namespace, "common")
	keys := slices.Sorted(maps.Keys(req.Texts))
	props := make(map[string]any, len(keys))
	for _, k := range keys {
		if k == "" {
			return CompletionRequest{}, Invalid("", CapStructuredOutput, "translation key is empty")
		}
		props[k] = map[string]any{"type": "string"}
	}
	schema, err := json.Marshal(map[string]any{
		"type": "object", "properties": props, "required": keys, "additionalProperties": false,
	})
	if err != nil {
		return CompletionRequest{}, Invalid("", CapStructuredOutput, "translation schema not encodable")
	}
	texts, err := json.Marshal(req.Texts) // encoding/json sorts map keys: stable prompts
	if err != nil {
		return CompletionRequest{}, Invalid("", CapStructuredOutput, "texts not encodable")
	}
	var system strings.Builder
	fmt.Fprintf(&system, "You translate user interface strings of the namespace %q from locale %s to locale %s.\n", namespace, source, req.TargetLocale)
	system.WriteString("The user message is a JSON object mapping keys to source texts. Answer with a JSON object with exactly the same keys, each mapped to its translation.\n")
	system.WriteString("Keep placeholders ({name}, {{name}}, %s, %d), markup tags, URLs and surrounding whitespace unchanged. Do not translate keys.")
	if req.Context != "" {
		system.WriteString("\nContext: " + req.Context)
	}
	return CompletionRequest{
		Model:     req.Model,
		MaxTokens: req.MaxTokens,
		Messages: []Message{
			Text(RoleSystem, system.String()),
			Text(RoleUser, string(texts)),
		},
		ResponseFormat: &ResponseFormat{Name: TranslationSchemaName, Schema: schema, Strict: true},
	}, nil
}

// ParseTranslation reads the answer of a translation completion: a JSON
// object with a string for every asked key. An answer that is not is the
// provider's fault (it was asked for exactly that shape).
func ParseTranslation(protocol string, req TranslationRequest, resp *CompletionResponse) (map[string]string, error) {
	var got map[string]any
	if err := json.Unmarshal([]byte(resp.Text), &got); err != nil {
		return nil, &Error{Kind: outcome.ProviderFault, Protocol: protocol, Capability: CapStructuredOutput,
			Reason: "translation answer is not a JSON object", RequestID: resp.RequestID}
	}
	out := make(map[string]string, len(req.Texts))
	for k := range req.Texts {
		s, ok := got[k].(string)
		if !ok {
			return nil, &Error{Kind: outcome.ProviderFault, Protocol: protocol, Capability: CapStructuredOutput,
				Reason: "translation answer lacks a key", RequestID: resp.RequestID}
		}
		out[k] = s
	}
	return out, nil
}

// Translate runs a translation on p. On a malformed answer the error comes
// with the result (Response set), so the gateway still meters the call.
func Translate(ctx context.Context, p Provider, req TranslationRequest) (*TranslationResult, error) {
	creq, err := TranslationCompletion(req)
	if err != nil {
		e, _ := AsError(err)
		e.Protocol = p.Protocol()
		return nil, e
	}
	resp, err := p.Complete(ctx, creq)
	if err != nil {
		return nil, err
	}
	texts, err := ParseTranslation(p.Protocol(), req, resp)
	return &TranslationResult{Texts: texts, Response: resp}, err
}
