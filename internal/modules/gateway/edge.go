package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/retry"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/catalog"
	postmarkfake "github.com/platform/backend/providers/email/postmark/fake"
	resendfake "github.com/platform/backend/providers/email/resend/fake"
	whatsappfake "github.com/platform/backend/providers/message/whatsapp/fake"
	stripefake "github.com/platform/backend/providers/payments/stripe/fake"
)

// EdgeSandbox are the fakes behind the edge's sandbox connections (make
// run, tests): each provider's fake, in-process, on loopback. Tests script
// their faults and read what they received.
type EdgeSandbox struct {
	Postmark *postmarkfake.Server
	Resend   *resendfake.Server
	WhatsApp *whatsappfake.Server
	Stripe   *stripefake.Server
}

// Keys of the edge's sandbox fakes (markers, not secrets).
const (
	sandboxPostmarkToken = "sandbox-postmark-not-a-secret"
	sandboxResendKey     = "re_sandbox_not_a_secret"
	sandboxWhatsAppToken = "sandbox-whatsapp-not-a-secret"
	sandboxStripeKey     = "sk_test_sandbox_not_a_secret"
)

// Close stops the fakes.
func (s *EdgeSandbox) Close() {
	if s.Postmark != nil {
		s.Postmark.Close()
	}
	if s.Resend != nil {
		s.Resend.Close()
	}
	if s.WhatsApp != nil {
		s.WhatsApp.Close()
	}
	if s.Stripe != nil {
		s.Stripe.Close()
	}
}

// buildEdge makes the edge: the platform's own connections of the email,
// instant-message and payments providers (a configured key, else the
// sandbox's fakes when the sandbox is on), organizations' own AI keys
// through the AI protocols, and the outbound client for relays.
//
// With the sandbox on, organizations' own connections of a provider the
// sandbox serves reach its fake too (unless the operator set the
// provider's base URL): nothing of a sandbox leaves the machine, and a key
// the fake does not know is refused like a wrong one.
func buildEdge(p *module.Platform, cfg *Config, h *gatewaycmd.Handlers, platformAI gatewaycmd.AIConnections, aiSandbox *Sandbox) (*gatewaycmd.Edge, *EdgeSandbox, error) {
	e := cfg.Edge
	e.BaseURLs = maps.Clone(e.BaseURLs)
	if e.BaseURLs == nil {
		e.BaseURLs = map[string]string{}
	}
	if err := e.checkRing(p.KeyRing, cfg.Sandbox); err != nil {
		return nil, nil, err
	}
	if e.sandboxRelayKey {
		p.Log.Warn("gateway: relays are signed with the sandbox's fixed key (no GATEWAY_RELAY_SIGNING_KEY): not for real apps")
	}
	links := gatewaycmd.PlatformLinks{}
	sandbox := &EdgeSandbox{}
	var problems []error
	for _, provider := range edgeProviders {
		build := gatewaycmd.Adapters[provider]
		key, ok := e.Platform[provider]
		switch {
		case ok && key.Key != "":
			l, err := build(e.BaseURLs[provider], platformSecrets(provider, key.Key), map[string]string{"phone_number_id": key.PhoneNumberID},
				cfg.Metering.CallTimeout)
			if err != nil {
				problems = append(problems, fmt.Errorf("gateway: the platform's %s key: %w", provider, err))
				continue
			}
			l.ConnectionID, l.Provider = "platform:"+provider, provider
			links[provider] = l
		case cfg.Sandbox:
			base, secret := sandbox.start(provider)
			if e.BaseURLs[provider] == "" {
				e.BaseURLs[provider] = base
			}
			l, err := build(base, platformSecrets(provider, secret), map[string]string{"phone_number_id": whatsappfake.DefaultPhoneNumberID},
				cfg.Metering.CallTimeout)
			if err != nil {
				problems = append(problems, fmt.Errorf("gateway sandbox %s: %w", provider, err))
				continue
			}
			l.ConnectionID, l.Provider, l.Sandbox = "sandbox:"+provider, provider, true
			links[provider] = l
		}
	}
	if err := errors.Join(problems...); err != nil {
		sandbox.Close()
		return nil, nil, err
	}
	edge := gatewaycmd.NewEdge(h, e.EdgeConfig, p.KeyRing, links, platformAI, ownAI(cfg, aiSandbox, p.Log), p.Outbound)
	return edge, sandbox, nil
}

// platformSecrets are a platform key as the provider's credential members.
func platformSecrets(provider, key string) gatewaycmd.Secrets {
	member := domain.ConnectionProviders[provider].Secrets[0]
	return gatewaycmd.Secrets{member: key}
}

// start serves a provider's fake and answers its base URL and key.
func (s *EdgeSandbox) start(provider string) (string, string) {
	switch provider {
	case domain.ProviderEmailA:
		s.Postmark = postmarkfake.Start(postmarkfake.Options{ServerToken: sandboxPostmarkToken})
		return s.Postmark.URL(), sandboxPostmarkToken
	case domain.ProviderEmailB:
		s.Resend = resendfake.Start(resendfake.Options{APIKey: sandboxResendKey})
		return s.Resend.URL(), sandboxResendKey
	case domain.ProviderMessageA:
		s.WhatsApp = whatsappfake.Start(whatsappfake.Options{AccessToken: sandboxWhatsAppToken})
		return s.WhatsApp.URL(), sandboxWhatsAppToken
	default:
		s.Stripe = stripefake.Start(stripefake.Config{APIKeys: []string{sandboxStripeKey}})
		return s.Stripe.URL(), sandboxStripeKey
	}
}

// closeOnDone stops the fakes when the process stops.
func (s *EdgeSandbox) closeOnDone(ctx context.Context) error {
	<-ctx.Done()
	s.Close()
	return nil
}

// ownAI builds an AI adapter for an organization's own key (BYOK) from
// the AI catalog, against the operator's base URL of the provider.
func ownAI(cfg *Config, sandbox *Sandbox, log *slog.Logger) gatewaycmd.AIFactory {
	return func(provider, key string, settings map[string]string) (gatewaycmd.AIConnection, error) {
		for _, info := range ai.Providers() {
			if string(info.ID) != provider {
				continue
			}
			base := cfg.Providers[info.ID].BaseURL
			if base == "" && sandbox != nil {
				base = sandbox.URL(info.ID) // the sandbox's fake, when it serves the provider
			}
			p, err := catalog.New(info.ID, catalog.Connection{APIKey: key, BaseURL: base,
				AccountID: settings["account_id"], Timeout: cfg.Metering.CallTimeout})
			if err != nil {
				log.Warn("gateway: an organization's AI key is not usable", "provider", provider)
				return gatewaycmd.AIConnection{}, err
			}
			return gatewaycmd.AIConnection{Provider: p, Info: info}, nil
		}
		return gatewaycmd.AIConnection{}, fmt.Errorf("unknown AI provider %s", provider)
	}
}

// edgeWorkers: the expiry scan's first timer (once per deployment), the
// credential canary (a leader: at start and every interval), the sandbox
// fakes' shutdown.
func edgeWorkers(p *module.Platform, edge *gatewaycmd.Edge, sandbox *EdgeSandbox) []module.Worker {
	return []module.Worker{
		{Name: "gateway-expiry-scan-start", Run: func(ctx context.Context) error {
			for try := 1; ; try++ {
				err := edge.Start(ctx)
				if err == nil {
					return nil
				}
				p.Log.Warn("gateway: the expiry scan's first timer was not scheduled; trying again", "err", err)
				if !retry.Sleep(ctx, retry.Backoff(time.Second, try, time.Minute)) {
					return nil
				}
			}
		}},
		{Name: "gateway-credential-canary", Run: func(ctx context.Context) error { return edge.RunCanary(ctx, p.Pool) }},
		{Name: "gateway-edge-sandbox", Run: sandbox.closeOnDone},
	}
}
