package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/anthropic"
	anthropicfake "github.com/platform/backend/providers/ai/anthropic/fake"
	"github.com/platform/backend/providers/ai/fakekit"
	"github.com/platform/backend/providers/ai/gemini"
	geminifake "github.com/platform/backend/providers/ai/gemini/fake"
	"github.com/platform/backend/providers/ai/openai"
	openaifake "github.com/platform/backend/providers/ai/openai/fake"
	"github.com/platform/backend/providers/ai/workersai"
	workersaifake "github.com/platform/backend/providers/ai/workersai/fake"
)

// protocol is what the gateway needs of one wire protocol: its adapter and
// its fake (the sandbox). A new protocol is one more entry.
type protocol struct {
	adapter func(c adapterConfig) (ai.Provider, error)
	// fake serves the protocol; base is the adapter's base URL relative to
	// the fake's root.
	fake func(key string) (http.Handler, *fakekit.Kit, string)
}

type adapterConfig struct {
	BaseURL string
	Key     string
	Account string // Workers AI's account id
	Timeout time.Duration
	Info    ai.ProviderInfo
}

var protocols = map[string]protocol{
	ai.ProtocolOpenAI: {
		adapter: func(c adapterConfig) (ai.Provider, error) {
			return openai.New(openai.Config{BaseURL: c.BaseURL, APIKey: c.Key, Timeout: c.Timeout, Capabilities: c.Info.Capabilities & openai.AllCapabilities, Models: c.Info.Models})
		},
		fake: func(key string) (http.Handler, *fakekit.Kit, string) {
			f := openaifake.New(key)
			return f, f.Kit, "/v1"
		},
	},
	ai.ProtocolAnthropic: {
		adapter: func(c adapterConfig) (ai.Provider, error) {
			return anthropic.New(anthropic.Config{BaseURL: c.BaseURL, APIKey: c.Key, Timeout: c.Timeout, Capabilities: c.Info.Capabilities & anthropic.AllCapabilities, Models: c.Info.Models})
		},
		fake: func(key string) (http.Handler, *fakekit.Kit, string) {
			f := anthropicfake.New(key)
			return f, f.Kit, ""
		},
	},
	ai.ProtocolWorkersAI: {
		adapter: func(c adapterConfig) (ai.Provider, error) {
			return workersai.New(workersai.Config{BaseURL: c.BaseURL, AccountID: c.Account, APIKey: c.Key, Timeout: c.Timeout, Capabilities: c.Info.Capabilities & workersai.AllCapabilities, Models: c.Info.Models})
		},
		fake: func(key string) (http.Handler, *fakekit.Kit, string) {
			f := workersaifake.New(key, sandboxAccount)
			return f, f.Kit, "/client/v4"
		},
	},
	ai.ProtocolGemini: {
		adapter: func(c adapterConfig) (ai.Provider, error) {
			return gemini.New(gemini.Config{BaseURL: c.BaseURL, APIKey: c.Key, Timeout: c.Timeout, Capabilities: c.Info.Capabilities & gemini.AllCapabilities, Models: c.Info.Models})
		},
		fake: func(key string) (http.Handler, *fakekit.Kit, string) { f := geminifake.New(key); return f, f.Kit, "" },
	},
}

// ProviderConfig is the platform's own connection to one AI provider.
type ProviderConfig struct {
	Key     string // GATEWAY_AI_PROVIDER_<N>_KEY
	BaseURL string // GATEWAY_AI_PROVIDER_<N>_BASE_URL (default the protocol's)
	Account string // GATEWAY_AI_PROVIDER_<N>_ACCOUNT (Workers AI's account id)
}

// sandboxKey is the fakes' key (not a secret, a marker), sandboxAccount
// the Workers AI fake's account.
const (
	sandboxKey     = "sandbox-key-not-a-secret"
	sandboxAccount = "sandbox"
)

// Sandbox is the fake providers the gateway serves in-process when
// GATEWAY_SANDBOX is on: one fake per provider id, on a loopback listener,
// each with its kit (tests script faults on it).
type Sandbox struct {
	kits    map[ai.ProviderID]*fakekit.Kit
	urls    map[ai.ProviderID]string
	servers []*http.Server
}

// Kit is the fake of a provider (nil when the sandbox does not serve it).
func (s *Sandbox) Kit(id ai.ProviderID) *fakekit.Kit { return s.kits[id] }

// URL is the base URL of a provider's fake.
func (s *Sandbox) URL(id ai.ProviderID) string { return s.urls[id] }

// Close stops the fakes.
func (s *Sandbox) Close() {
	for _, srv := range s.servers {
		_ = srv.Close()
	}
}

// connections builds the platform's AI connections: a provider with a key
// in the configuration gets a platform connection; without one, the sandbox
// serves it when on. Every default model and per-call operation must have a
// price, or the start fails.
func connections(cfg *Config, log *slog.Logger) (gatewaycmd.StaticAI, *Sandbox, error) {
	out := gatewaycmd.StaticAI{}
	sandbox := &Sandbox{kits: map[ai.ProviderID]*fakekit.Kit{}, urls: map[ai.ProviderID]string{}}
	var problems []error
	for _, info := range ai.Providers() {
		proto, ok := protocols[info.Protocol]
		if !ok {
			log.Warn("gateway: no adapter for the provider's protocol yet", "provider", info.ID, "protocol", info.Protocol)
			continue
		}
		pc := cfg.Providers[info.ID]
		conn := gatewaycmd.AIConnection{Info: info}
		ac := adapterConfig{BaseURL: firstNonEmpty(pc.BaseURL, info.BaseURL), Key: pc.Key, Account: pc.Account, Timeout: cfg.Metering.CallTimeout, Info: info}
		switch {
		case pc.Key != "":
			conn.ID = "platform:" + string(info.ID)
		case cfg.Sandbox:
			_, kit, base, err := sandbox.serve(info.ID, proto)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			ac.BaseURL, ac.Key, ac.Account = base, sandboxKey, sandboxAccount
			conn.ID, conn.Sandbox = "sandbox:"+string(info.ID), true
			sandbox.kits[info.ID] = kit
		default:
			continue
		}
		p, err := proto.adapter(ac)
		if err != nil {
			problems = append(problems, fmt.Errorf("gateway: %s: %w", info.ID, err))
			continue
		}
		conn.Provider = p
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

// serve starts a provider's fake on a loopback port.
func (s *Sandbox) serve(id ai.ProviderID, p protocol) (http.Handler, *fakekit.Kit, string, error) {
	h, kit, base := p.fake(sandboxKey)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, "", fmt.Errorf("gateway sandbox %s: %w", id, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	s.servers = append(s.servers, srv)
	url := "http://" + ln.Addr().String() + base
	s.urls[id] = url
	return h, kit, url, nil
}

// closeOnDone stops the sandbox when the process stops.
func (s *Sandbox) closeOnDone(ctx context.Context) error {
	<-ctx.Done()
	s.Close()
	return nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
