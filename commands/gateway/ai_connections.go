package gateway

import (
	"context"
	"fmt"
	"slices"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/ai"
)

// AIConnection is the provider connection one AI call runs on.
type AIConnection struct {
	// ID names the connection in usage events and key health
	// ("platform:ai_provider_1", "sandbox:ai_provider_5", or an
	// organization's own connection id).
	ID       string
	Provider ai.Provider
	Info     ai.ProviderInfo
	// BYOK: the organization's own key; the call is charged the service fee.
	BYOK bool
	// Sandbox: a fake provider in-process (make run), marked in answers.
	Sandbox bool
}

// AIConnections resolves the connection an organization's call to a
// provider uses. The connections area (an organization's own keys) wraps
// the platform's: its own connection first, else the platform's.
type AIConnections interface {
	AI(ctx context.Context, org string, provider ai.ProviderID) (AIConnection, error)
}

// StaticAI are the platform's connections (its own keys, or the sandbox),
// the same for every organization.
type StaticAI map[ai.ProviderID]AIConnection

var _ AIConnections = StaticAI{}

func (s StaticAI) AI(_ context.Context, _ string, id ai.ProviderID) (AIConnection, error) {
	c, ok := s[id]
	if !ok {
		return AIConnection{}, errs.InvalidField("/provider", fmt.Sprintf("the provider %s has no connection on this platform", id))
	}
	return c, nil
}

// CheckPrices refuses connections whose default models, or operations
// billed per call, have no price in the current table: a start-up error,
// never "free" at request time.
func (s StaticAI) CheckPrices() error {
	var missing []string
	for id, c := range s {
		caps := c.Provider.Capabilities()
		for _, need := range pricedDefaults(c.Info.Models, caps) {
			if _, err := prices.Current.Lookup(string(id), need.model, need.op); err != nil {
				missing = append(missing, err.Error())
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("gateway: configured AI operations without a price: %v", missing)
	}
	return nil
}

type pricedModel struct{ model, op string }

// pricedDefaults are the (model, operation) pairs a connection serves
// without the caller naming a model.
func pricedDefaults(m ai.Models, caps ai.Capability) []pricedModel {
	var out []pricedModel
	add := func(c ai.Capability, model, op string) {
		if caps.Has(c) && model != "" {
			out = append(out, pricedModel{model, op})
		}
	}
	add(ai.CapChat, m.Chat, prices.OpChat)
	add(ai.CapVision, m.Vision, prices.OpChat)
	add(ai.CapEmbeddings, m.Embedding, prices.OpEmbedding)
	add(ai.CapTranscription, m.Transcription, prices.OpTranscription)
	add(ai.CapImageGeneration, m.Image, prices.OpImage)
	if caps.Has(ai.CapMarkdown) {
		out = append(out, pricedModel{prices.AnyModel, prices.OpMarkdown})
	}
	if caps.Has(ai.CapRAGSearch) {
		out = append(out, pricedModel{prices.AnyModel, prices.OpRAGSearch})
	}
	return out
}
