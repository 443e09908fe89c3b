package gateway

import (
	"context"
	"maps"
	"slices"

	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/ai"
)

// TranslationInput is ai.translations.create's input (seed 001).
type TranslationInput struct {
	TargetLocale string            `json:"target_locale"`
	Texts        map[string]string `json:"texts"`
	Provider     string            `json:"provider"`
	Model        string            `json:"model"`
	SourceLocale string            `json:"source_locale"`
	Namespace    string            `json:"namespace"`
	Context      string            `json:"context"`
	AppID        string            `json:"app_id"`
	AutoPublish  *bool             `json:"auto_publish"`
}

// Translation is the translated texts with what they cost.
type Translation struct {
	Receipt
	Translations map[string]string `json:"translations"`
	SourceLocale string            `json:"source_locale"`
	TargetLocale string            `json:"target_locale"`
	Namespace    string            `json:"namespace"`
	AutoPublish  bool              `json:"auto_publish"`
	ConnectionID string            `json:"connection_id"`
	Sandbox      bool              `json:"sandbox"`
}

// Translate runs a translation as one completion with a structured output
// (every key of texts, each a string) through the metered path.
func (c *Client) Translate(ctx context.Context, caller Caller, in TranslationInput) (Translation, error) {
	req := ai.TranslationRequest{Model: in.Model, SourceLocale: firstOf(in.SourceLocale, "en"), TargetLocale: in.TargetLocale,
		Namespace: firstOf(in.Namespace, "common"), Context: in.Context, Texts: in.Texts, MaxTokens: translationMaxTokens(in.Texts)}
	creq, err := ai.TranslationCompletion(req)
	if err != nil {
		return Translation{}, invalidAI(err, "/texts")
	}
	conn, err := c.connection(ctx, caller, in.Provider)
	if err != nil {
		return Translation{}, err
	}
	req.Model = conn.Info.Models.ForCompletion(creq)
	creq.Model = req.Model
	call := c.aiCall(withDefaults(caller, in.AppID, "completion"), conn, "ai.translations", req.Model, prices.OpChat, completionEstimate(creq))
	receipt, res, err := meterAI(ctx, c, call, func(ctx context.Context) (*ai.TranslationResult, error) {
		return ai.Translate(ctx, conn.Provider, req)
	}, func(r *ai.TranslationResult) (ai.Usage, string) {
		if r.Response == nil {
			return ai.Usage{}, ""
		}
		return completionUsage(r.Response)
	})
	if err != nil {
		return Translation{}, err
	}
	publish := in.AutoPublish == nil || *in.AutoPublish
	return Translation{Receipt: receipt, Translations: res.Texts, SourceLocale: req.SourceLocale, TargetLocale: req.TargetLocale,
		Namespace: req.Namespace, AutoPublish: publish, ConnectionID: conn.ID, Sandbox: conn.Sandbox}, nil
}

// translationMaxTokens bounds a translation's answer: the keys and twice
// the source (a target language may take more tokens), within 32000.
func translationMaxTokens(texts map[string]string) int {
	n := 256
	for _, k := range slices.Sorted(maps.Keys(texts)) {
		n += len(k) + 8 + 2*len(texts[k])
	}
	return min(n, 32000)
}
