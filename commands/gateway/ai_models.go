package gateway

import (
	"context"
	"slices"
	"strings"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/ai"
)

// ModelOffer is a model an organization may call: a provider it has a
// connection to (its own, the platform's or the sandbox) and a model the
// current price table prices for an operation, with that price.
type ModelOffer struct {
	Provider     string
	Model        string
	Operation    string // prices.OpChat or prices.OpEmbedding
	Price        prices.Price
	PriceVersion string
	BYOK         bool
	Sandbox      bool
}

// ID is the offer's model id for OpenAI-style clients: <provider>/<model>,
// which ResolveModel reads back.
func (o ModelOffer) ID() string { return o.Provider + "/" + o.Model }

// offeredOps are the operations a model list names, with the capability a
// connection needs for each.
var offeredOps = []struct {
	op  string
	cap ai.Capability
}{{prices.OpChat, ai.CapChat}, {prices.OpEmbedding, ai.CapEmbeddings}}

// Models lists the chat and embedding models the caller's organization may
// use, in the seed's provider order: a provider without a usable connection
// for it is left out; a model without a price is never offered (it would
// be refused).
func (c *Client) Models(ctx context.Context, caller Caller) ([]ModelOffer, error) {
	var out []ModelOffer
	for _, info := range ai.Providers() {
		conn, err := c.connection(ctx, caller, string(info.ID))
		if err != nil {
			// No connection of this provider (invalid input), or one that is
			// not usable now (a credential the ring cannot open): not offered.
			// Anything else (the database) is the caller's error.
			if k := errs.KindOf(err); k == errs.KindInvalidInput || k == errs.KindConflict {
				continue
			}
			return nil, err
		}
		caps := conn.Provider.Capabilities()
		for _, o := range offeredOps {
			if !caps.Has(o.cap) {
				continue
			}
			for _, model := range prices.Current.Models(string(info.ID), o.op) {
				if model == prices.AnyModel {
					continue
				}
				p, _ := prices.Current.Lookup(string(info.ID), model, o.op)
				out = append(out, ModelOffer{Provider: string(info.ID), Model: model, Operation: o.op, Price: p,
					PriceVersion: prices.Current.Version, BYOK: conn.BYOK, Sandbox: conn.Sandbox})
			}
		}
	}
	return out, nil
}

// ResolveModel reads a model id of an OpenAI- or Anthropic-style request:
// <provider>/<model> (the ids Models lists), or a model's own name when
// one provider of the current price table prices it for op
// ("gpt-4o-mini", "claude-haiku-4-5"). ok is false for anything else.
func ResolveModel(name, op string) (provider, model string, ok bool) {
	if p, m, cut := strings.Cut(name, "/"); cut && m != "" {
		if _, err := ai.Lookup(ai.ProviderID(p)); err == nil {
			return p, m, true
		}
	}
	var providers []string
	for k := range prices.Current.Prices {
		if k.Model == name && k.Operation == op && !slices.Contains(providers, k.Provider) {
			providers = append(providers, k.Provider)
		}
	}
	if len(providers) != 1 || name == prices.AnyModel {
		return "", "", false
	}
	return providers[0], name, true
}
