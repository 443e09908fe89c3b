// Package agent is the agent service's module (seed 002): flows and runs on
// the job kernel, approvals and tasks, triggers (durable timers, a reactor
// over the platform's events), knowledge and the public website assistant,
// person profiles; its own listener and its step workers' (agent-jobs).
package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	agentcmd "github.com/platform/backend/commands/agent"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/reactor"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/identity"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	agenthttp "github.com/platform/backend/http/agent"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/projections"
	view "github.com/platform/backend/projections/agent"
	"github.com/platform/backend/providers/verification"
	"github.com/platform/backend/providers/verification/turnstile"
)

// Scopes are seed 002's agent API key scopes (authentication, item 7), in
// the catalog's resource:action syntax.
var Scopes = []string{"agents:read", "agents:write", "approvals:write", "knowledge:read", "knowledge:write", "reports:read",
	"runs:invoke", "workflows:read", "workflows:write", "workspace:read", "workspace:write"}

// Module is the agent context. Its catalog app replaces the identity
// catalog's placeholder entry for the agent.
var Module = module.Module{
	Name:       domain.Context,
	Topic:      true,
	EventTypes: append(slices.Clone(domain.EventTypes), domjobs.EventTypes(domain.Context)...),
	Migrations: []module.Migration{agentcmd.Migrate},
	NewConfig:  func() module.Section { return &Config{} },
	Service: &module.ServiceSpec{Name: "agent", DefaultAddr: "127.0.0.1:8089", HealthPath: agenthttp.HealthPath,
		Summary: "/api/flows, /api/runs, /api/approvals, /api/tasks, /api/knowledge, /api/public/chat, /api/person-profiles, /api/widget"},
	Jobs: &module.JobsSpec{DefaultAddr: "127.0.0.1:8095"},
	App: &module.App{AppID: agentcmd.AppID, Name: "Agent", SurfaceKind: "app", SurfaceGroup: "assist", Launchable: true,
		DefaultAccess: true, Scopes: Scopes, ResourceTypes: []string{"workspace"}},
	TenantKeyScopes: Scopes,
	// Tests: the sandbox verifier, quick step retries, the public chat's
	// limits out of the way (the rate-limit tests set their own).
	TestEnv: map[string]string{"AGENT_VERIFIER": "sandbox", "AGENT_STEP_BACKOFF": "500ms", "AGENT_CHAT_PER_MINUTE": "600000",
		"AGENT_CHAT_BURST": "100000", "AGENT_CHAT_SESSION_PER_MINUTE": "600000", "AGENT_CHAT_SESSION_BURST": "100000"},
	Build: build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	ids, err := module.Lookup[*identitycmd.Handlers](p)
	if err != nil {
		return module.Parts{}, err
	}
	// The platform's own services, configured by the operator: a plain
	// client, not the outbound one for tenant URLs (it refuses loopback).
	client := &http.Client{}
	var services []agentcmd.Service
	known := map[string]bool{}
	var triggerTypes []string
	for _, m := range p.Modules {
		for _, t := range m.EventTypes {
			known[t] = true
			if m.Name != domain.Context {
				triggerTypes = append(triggerTypes, t)
			}
		}
		if m.Service == nil || m.App == nil {
			continue
		}
		base := cfg.ServiceURLs[m.Service.Name]
		if base == "" {
			base = module.LocalURL(p.Addrs[m.Service.Name])
		}
		services = append(services, agentcmd.Service{Name: m.Service.Name, BaseURL: base, AppID: m.App.AppID})
	}
	catalog := agentcmd.NewCatalog(&http.Client{Timeout: 30 * time.Second}, services, cfg.Commands.CatalogTTL)
	creds := agentcmd.NewCredentials(p.Pool, p.Sealer(domain.Context), minter{h: ids}, p.Log)
	h, err := agentcmd.NewHandlers(agentcmd.Deps{Store: p.Store, Pool: p.Pool, Now: p.Now, Config: cfg.Commands, Log: p.Log,
		Catalog: catalog, Creds: creds, Jobs: p.Jobs, KnownEvent: func(t string) bool { return known[t] }, Client: client})
	if err != nil {
		return module.Parts{}, err
	}
	verifier, err := verifierOf(cfg, client)
	if err != nil {
		return module.Parts{}, err
	}
	queries := view.NewQueries(p.Pool, p.Reader)
	// AI goes through the gateway, metered and capped; without its module
	// there is none (503), never an unmetered stand-in.
	var ai agentcmd.AI
	if gw, err := module.Lookup[*gatewaycmd.Client](p); err == nil {
		ai = gatewayAI{client: gw}
	}
	assistant := agentcmd.NewAssistant(h, verifier, queries, queries, ai, directory{store: p.Store, ids: ids})
	module.Provide(p, h)
	module.Provide(p, assistant)
	module.Provide(p, queries)
	deps := agenthttp.Deps{Commands: h, Assistant: assistant, Queries: queries, Catalog: catalog, Now: p.Now,
		ChatByAddress: httpapi.NewLimiter(httpapi.RateLimitConfig{PerSecond: cfg.ChatPerMinute / 60, Burst: cfg.ChatBurst}),
		ChatBySession: httpapi.NewLimiter(httpapi.RateLimitConfig{PerSecond: cfg.ChatSessionPerMinute / 60, Burst: cfg.ChatSessionBurst}),
		EventTypes:    triggerTypes}
	return module.Parts{
		Projections: []projections.Projection{view.Projection{}},
		Reactors:    []reactor.Reactor{h.Runs(), h.Triggers(triggerTypes)},
		Timers:      h.RegisterTimers,
		Jobs:        []jobs.Kind{h.Kind()},
		Service:     func(httpapi.Deps) (httpapi.Service, error) { return agenthttp.Service(deps), nil },
		Widget:      agenthttp.Widget(deps),
		ActionItems: agenthttp.ActionItems(deps),
	}, nil
}

func verifierOf(cfg *Config, client *http.Client) (verification.Verifier, error) {
	if cfg.Verifier == "turnstile" {
		return turnstile.New(turnstile.Config{BaseURL: cfg.TurnstileURL, SiteKey: cfg.TurnstileSiteKey, SecretKey: cfg.TurnstileSecretKey,
			Hostnames: cfg.TurnstileHostnames}, client)
	}
	return verification.Sandbox{}, nil
}

// minter mints and revokes the flows' delegated keys through identity's
// commands: the key's creator is the flow's owner, so /validate narrows it
// to what the owner holds at every call.
type minter struct{ h *identitycmd.Handlers }

func (m minter) Mint(ctx context.Context, organizationID string, owner domain.Owner, name, app string, scopes []string) (string, string, error) {
	res, err := m.h.CreateAPIKey(ctx, commandsMeta(organizationID, owner.ID, owner.Type),
		identitycmd.CreateAPIKey{Name: name, Service: app, Scopes: scopes})
	if err != nil {
		return "", "", err
	}
	return res.Value.KeyID, res.Value.Token, nil
}

func (m minter) Revoke(ctx context.Context, organizationID, keyID string) error {
	_, err := m.h.RevokeAPIKey(ctx, commandsMeta(organizationID, "agent", "system"), identitycmd.RevokeAPIKey{KeyID: keyID})
	if errs.KindOf(err) == errs.KindConflict || errs.KindOf(err) == errs.KindNotFound {
		return nil // revoked already, or gone
	}
	return err
}

// directory answers the agent's questions to identity from its write side.
type directory struct {
	store *eventstore.Store
	ids   *identitycmd.Handlers
}

func (d directory) OrganizationExists(ctx context.Context, organizationID string) (bool, error) {
	if organizationID == "" || len(organizationID) > 128 {
		return false, nil
	}
	history, err := d.store.Load(ctx, organizationID)
	if err != nil {
		return false, errs.Unavailable("identity store unavailable", err)
	}
	if len(history) == 0 || history[0].StreamType != identity.StreamOrganization {
		return false, nil
	}
	o, err := identity.LoadOrganization(commandsRecorded(history))
	if err != nil {
		return false, err
	}
	return o.Active(), nil
}

func (d directory) IsMember(ctx context.Context, organizationID, userID string) (bool, error) {
	a, err := d.ids.ActorIn(ctx, identity.Principal{ID: userID, Type: "user", UserID: userID}, organizationID)
	if err != nil {
		return false, err
	}
	return a.Role != "", nil
}

// gatewayAI is the agent's AI through the usage gateway's in-process
// client: metered, under the organization's spend caps.
type gatewayAI struct{ client *gatewaycmd.Client }

func (g gatewayAI) Complete(ctx context.Context, c agentcmd.Completion) (string, string, error) {
	sys, _ := json.Marshal(c.System)
	user, _ := json.Marshal(c.Prompt)
	out, err := g.client.Complete(ctx, gatewaycmd.Caller{OrganizationID: c.OrganizationID, PrincipalID: c.PrincipalID,
		PrincipalType: c.PrincipalType, UserID: c.UserID, AppID: agentcmd.AppID, UseCase: c.UseCase},
		gatewaycmd.CompletionInput{Messages: []gatewaycmd.MessageInput{{Role: "system", Content: sys}, {Role: "user", Content: user}},
			MaxTokens: c.MaxTokens, AppID: agentcmd.AppID, UseCase: c.UseCase})
	if err != nil {
		return "", "", err
	}
	return out.Text, out.AnsweredBy, nil
}
