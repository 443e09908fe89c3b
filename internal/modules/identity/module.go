// Package identity is the identity service's module (seed 001): accounts,
// sessions, organizations, the access catalog, API keys, service tokens,
// privacy lifecycle; and the authority every service's credentials are
// checked against (Platform.Validator).
package identity

import (
	"context"
	"fmt"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/commands/workspace"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	identityhttp "github.com/platform/backend/http/identity"
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/projections"
	accessview "github.com/platform/backend/projections/access"
	identityview "github.com/platform/backend/projections/identity"
	"github.com/platform/backend/providers/email"
)

// Module is the identity context. It is listed first: every other service
// authenticates through the validator it provides.
var Module = module.Module{
	Name:              "identity",
	Topic:             true,
	EventTypes:        domain.EventTypes,
	Migrations:        []module.Migration{identitycmd.Migrate},
	NewConfig:         func() module.Section { return &Config{} },
	Service:           &module.ServiceSpec{Name: "identity", DefaultAddr: "127.0.0.1:8081", Summary: "/validate, /login, /api/organizations, /api/api-keys"},
	TenantKeyScopes:   []string{"api_keys:write"},
	OperatorKeyScopes: []string{"privacy:maintain", "service_tokens:issue"},
	AuditRedacted:     domain.AuditRedacted,
	Locks:             []leader.Lock{identitycmd.PrivacyMaintenanceLock},
	Build:             build,
}

func build(ctx context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	opts := []identitycmd.Option{identitycmd.WithKeys(p.Pool),
		identitycmd.WithSessions(identitycmd.SessionConfig{AccessTTL: cfg.AccessTTL, SessionTTL: cfg.SessionTTL})}
	// Every process announces changes to the credential streams, whether or
	// not it watches them itself: another process's watch relies on it.
	p.Store.NotifyHeads(identitycmd.WatchedStreamTypes...)
	var watch *eventstore.HeadWatch
	if cfg.HeadWatch.Bound >= 0 {
		watch = eventstore.NewHeadWatch(p.Store, cfg.HeadWatch, p.Log)
		opts = append(opts, identitycmd.WithHeads(watch))
		// One listening session a process: other modules keep memory
		// derived from their own notifying streams on it (eventstore.Memo).
		module.Provide(p, watch)
	}
	commands := identitycmd.NewHandlers(p.Store, p.Now, opts...)
	accounts := identityview.NewQueries(p.Pool, p.Reader, commands.Keys())
	commands.SetDirectory(accounts)
	access, err := newAccess(ctx, p, cfg, commands)
	if err != nil {
		return module.Parts{}, err
	}
	// Service-scoped sign-in asks the access half which organizations may use a service.
	commands.SetServiceAccess(access.MayUseService)
	accessQueries := accessview.NewQueries(p.Pool, p.Reader)

	local := httpapi.ValidatorFunc(commands.Validate)
	var validator httpapi.Validator = local
	if p.AuthBaseURL != "" {
		validator = httpapi.NewRemoteValidator(p.AuthBaseURL)
	}
	// Service tokens are verified against the identity service's key set,
	// never sent to /validate.
	p.Validator = identityhttp.WithServiceTokens(access.Keys(), validator)
	module.Provide(p, commands)
	module.Provide(p, access)
	module.Provide(p, accounts)
	module.Provide[workspace.Directory](p, workspaces{access: access})

	parts := module.Parts{
		Projections: []projections.Projection{identityview.Projection{}, accessview.Projection{}},
		Service: func(deps httpapi.Deps) (httpapi.Service, error) {
			web := identityhttp.SessionWeb{CookieDomain: cfg.CookieDomain, AdminConsoleURL: cfg.AdminConsoleURL, CORS: deps.CORS}
			svc := identityhttp.Service(identityhttp.AccountsDeps{Commands: commands, Accounts: accounts, Log: p.Log, Web: web},
				identityhttp.AccessPart(identityhttp.AccessDeps{Access: access, Queries: accessQueries, Log: p.Log, Attempts: deps.Attempts, Web: web}),
				identityhttp.RecoveryPart(identityhttp.RecoveryDeps{Access: access, Web: web}),
				identityhttp.WorkspacesPart(access),
				identityhttp.SecurityPart(identityhttp.SecurityDeps{Commands: commands, Access: access, Log: p.Log, Web: web}),
				identityhttp.ValidatePart(local, deps))
			return svc, nil
		},
	}
	if watch != nil {
		parts.Workers = append(parts.Workers, module.Worker{Name: "head-watch", Run: watch.Run})
	}
	if cfg.PrivacyInterval > 0 {
		parts.Workers = append(parts.Workers, module.Worker{Name: "privacy-maintenance", Run: func(ctx context.Context) error {
			commands.RunPrivacyMaintenance(ctx, p.Pool, cfg.PrivacyInterval, p.Log)
			return nil
		}})
	}
	return parts, nil
}

// newAccess builds the access half: the service-token key set (created on
// first start), the email provider, and the catalog seeded with every
// module's app (idempotent: an unchanged catalog appends nothing).
func newAccess(ctx context.Context, p *module.Platform, cfg *Config, commands *identitycmd.Handlers) (*identitycmd.Access, error) {
	keys := identitycmd.NewServiceKeys(p.Pool, nil)
	if err := keys.Init(ctx); err != nil {
		return nil, fmt.Errorf("identity service keys: %w", err)
	}
	var mail email.Sender = &email.Sandbox{Log: p.Log}
	if cfg.SMTP.Addr != "" {
		smtp := cfg.SMTP
		mail = &smtp
	}
	publicURL := cfg.PublicURL
	if publicURL == "" {
		publicURL = module.LocalURL(p.Addrs["identity"])
	}
	access := identitycmd.NewAccess(commands, identitycmd.AccessConfig{PublicURL: publicURL, AppsBaseURL: cfg.AppsBaseURL}, mail, keys, p.Log)
	var declared []domain.CatalogEntry
	for _, a := range p.Apps() {
		declared = append(declared, domain.FirstPartyEntry(cfg.AppsBaseURL, a.AppID, a.Name, a.SurfaceKind, a.SurfaceGroup,
			a.Launchable, a.DefaultAccess, a.Scopes, a.PlatformScopes, a.ResourceTypes))
	}
	if _, err := access.SeedCatalog(ctx, declared); err != nil {
		return nil, fmt.Errorf("seed service catalog: %w", err)
	}
	return access, nil
}
