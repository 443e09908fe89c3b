package gateway

import (
	"context"
	"errors"
	"fmt"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/ai/catalog"
)

// ProviderConfig is the platform's own connection to one AI provider.
type ProviderConfig struct {
	Key     string // GATEWAY_AI_PROVIDER_<N>_KEY
	BaseURL string // GATEWAY_AI_PROVIDER_<N>_BASE_URL (default the registry's, else the protocol's)
	Account string // GATEWAY_AI_PROVIDER_<N>_ACCOUNT (Workers AI's account id)
}

// Sandbox is the fake providers the gateway serves in-process when
// GATEWAY_SANDBOX is on: one fake per provider id without a key, on a
// loopback port (providers/ai/catalog), each with its kit (tests script
// faults on it).
type Sandbox struct {
	fakes map[ai.ProviderID]*catalog.Sandbox
}

// Kit is the fake of a provider (nil when the sandbox does not serve it).
func (s *Sandbox) Kit(id ai.ProviderID) *aifake.Kit {
	if f := s.fakes[id]; f != nil {
		return f.Kit
	}
	return nil
}

// Provider is the adapter the gateway calls a provider's fake with (nil
// when not served): the benchmark's direct path uses the same.
func (s *Sandbox) Provider(id ai.ProviderID) ai.Provider {
	if f := s.fakes[id]; f != nil {
		return f.Provider
	}
	return nil
}

// URL is the base URL of a provider's fake ("" when not served).
func (s *Sandbox) URL(id ai.ProviderID) string {
	if f := s.fakes[id]; f != nil {
		return f.URL()
	}
	return ""
}

// Close stops the fakes.
func (s *Sandbox) Close() {
	for _, f := range s.fakes {
		f.Close()
	}
}

// connections builds the platform's AI connections: a provider with a key
// in the configuration gets a platform connection; without one, the sandbox
// serves it when on. Every default model and per-call operation must have a
// price, or the start fails.
func connections(cfg *Config) (gatewaycmd.StaticAI, *Sandbox, error) {
	out := gatewaycmd.StaticAI{}
	sandbox := &Sandbox{fakes: map[ai.ProviderID]*catalog.Sandbox{}}
	var problems []error
	for _, info := range ai.Providers() {
		pc := cfg.Providers[info.ID]
		conn := gatewaycmd.AIConnection{Info: info}
		switch {
		case pc.Key != "":
			p, err := catalog.New(info.ID, catalog.Connection{APIKey: pc.Key, BaseURL: pc.BaseURL, AccountID: pc.Account, Timeout: cfg.Metering.CallTimeout})
			if err != nil {
				problems = append(problems, fmt.Errorf("gateway: %s: %w", info.ID, err))
				continue
			}
			conn.ID, conn.Provider = "platform:"+string(info.ID), p
		case cfg.Sandbox:
			f, err := catalog.StartSandboxWith(info.ID, catalog.Connection{Timeout: cfg.Metering.CallTimeout})
			if err != nil {
				problems = append(problems, fmt.Errorf("gateway sandbox: %s: %w", info.ID, err))
				continue
			}
			f.Kit.SetDelay(cfg.SandboxDelay)
			sandbox.fakes[info.ID] = f
			conn.ID, conn.Provider, conn.Sandbox = "sandbox:"+string(info.ID), f.Provider, true
		default:
			continue
		}
		out[info.ID] = conn
	}
	if err := out.CheckPrices(); err != nil {
		problems = append(problems, err)
	}
	if err := errors.Join(problems...); err != nil {
		sandbox.Close()
		return nil, nil, err
	}
	return out, sandbox, nil
}

// closeOnDone stops the sandbox when the process stops.
func (s *Sandbox) closeOnDone(ctx context.Context) error {
	<-ctx.Done()
	s.Close()
	return nil
}
