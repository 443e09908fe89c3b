package identity

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/providers/email"
)

// Access holds the access half of the identity service: permissions, the
// service catalog, API key options, magic links, provisioning from checkout,
// SSO handoff and launcher preferences. It shares the event store, keyring
// and session start of Handlers.
type Access struct {
	h    *Handlers
	cfg  AccessConfig
	mail email.Sender
	keys *ServiceKeys
	log  *slog.Logger
}

// AccessConfig is the part of the configuration the access commands read.
type AccessConfig struct {
	// PublicURL is the identity service's browser-facing base URL: magic
	// links point at PublicURL/magic-link/consume.
	PublicURL string
	// AppsBaseURL is the base of first-party app entrypoints in the default
	// catalog (redirectUri and SSO redirect_uri are checked against them).
	AppsBaseURL string
}

func NewAccess(h *Handlers, cfg AccessConfig, mail email.Sender, keys *ServiceKeys, log *slog.Logger) *Access {
	if log == nil {
		log = slog.Default()
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	a := &Access{h: h, cfg: cfg, mail: mail, keys: keys, log: log}
	h.onboard = a
	return a
}

// Keys is the service-token key set.
func (a *Access) Keys() *ServiceKeys { return a.keys }

func (a *Access) now() time.Time { return a.h.now() }

func (a *Access) load(ctx context.Context, streamID string) ([]eventstore.Event, error) {
	history, err := a.h.store.Load(ctx, streamID)
	if err != nil {
		return nil, errs.Unavailable("identity store unavailable", err)
	}
	return history, nil
}

// Catalog loads the service catalog from the write side.
func (a *Access) Catalog(ctx context.Context) (*domain.Catalog, error) {
	history, err := a.load(ctx, domain.CatalogStream)
	if err != nil {
		return nil, err
	}
	return domain.LoadCatalog(commands.Recorded(history))
}

// OrgAccess loads an organization's access settings from the write side.
func (a *Access) OrgAccess(ctx context.Context, organizationID string) (*domain.OrgAccess, error) {
	history, err := a.load(ctx, domain.AccessStreamID(organizationID))
	if err != nil {
		return nil, err
	}
	return loadOrgAccess(organizationID)(commands.Recorded(history))
}

// loadOrgAccess is the loader of one organization's access stream.
func loadOrgAccess(organizationID string) func([]event.Recorded) (*domain.OrgAccess, error) {
	return func(history []event.Recorded) (*domain.OrgAccess, error) {
		return domain.LoadOrgAccess(organizationID, history)
	}
}

// MayUseService answers whether an organization may use a service; it plugs
// into first-party service-scoped sign-in (WithServiceAccess).
func (a *Access) MayUseService(ctx context.Context, organizationID, service string) (bool, error) {
	cat, err := a.Catalog(ctx)
	if err != nil {
		return false, err
	}
	acc, err := a.OrgAccess(ctx, organizationID)
	if err != nil {
		return false, err
	}
	return acc.MayUse(cat, service), nil
}

// Caller is a validated principal as authorization sees it. Its
// permissions are the ones validation evaluated (domain.MemberPermissions,
// domain.KeyPermissions): one model for every route.
func (a *Access) Caller(p domain.Principal) domain.Caller {
	return domain.Caller{PrincipalID: p.ID, Type: p.Type, OrganizationID: p.OrganizationID, Role: domain.RoleOrDefault(p.Role),
		PlatformRole: p.PlatformRole, InAdministration: p.PlatformWide(), Permissions: p.Permissions}
}

// authorize applies one rule to the target organization, then loads the
// catalog and the target's access for the caller to work with.
func (a *Access) authorize(ctx context.Context, p domain.Principal, organizationID string, r domain.Rule) (domain.Caller, *domain.Catalog, *domain.OrgAccess, error) {
	c := a.Caller(p)
	if err := domain.Authorize(c, organizationID, r); err != nil {
		return domain.Caller{}, nil, nil, err
	}
	cat, err := a.Catalog(ctx)
	if err != nil {
		return domain.Caller{}, nil, nil, err
	}
	acc, err := a.OrgAccess(ctx, organizationID)
	if err != nil {
		return domain.Caller{}, nil, nil, err
	}
	return c, cat, acc, nil
}

// Permission strings of the identity service's own access actions.
const (
	PermPermissionsRead     = "app_platform_auth.permissions:read"
	PermPermissionsManage   = "app_platform_auth.permissions:manage"
	PermServiceAccessRead   = "app_platform_auth.service_access:read"
	PermServiceAccessManage = "app_platform_auth.service_access:manage"
	PermAPIKeysRead         = "app_platform_auth.api_keys:read"
	PermAPIKeysWrite        = "app_platform_auth.api_keys:write"
	PermCatalogRead         = "app_platform_auth.catalog:read"
)

// Rules of the access routes. User-permission management is an
// organization-scoped admin route (seed 001, authentication rule 7).
var (
	RulePermissionsRead   = domain.Rule{Permission: PermPermissionsRead, OrgAdminRoute: true}
	RulePermissionsManage = domain.Rule{Permission: PermPermissionsManage, OrgAdminRoute: true}
	RuleServiceAccessRead = domain.Rule{Permission: PermServiceAccessRead}
	RuleServiceAccessEdit = domain.Rule{Permission: PermServiceAccessManage}
	RuleAPIKeysRead       = domain.Rule{Permission: PermAPIKeysRead}
	RuleAPIKeysWrite      = domain.Rule{Permission: PermAPIKeysWrite}
)

// Authorize applies a rule for the principal on an organization.
func (a *Access) Authorize(ctx context.Context, p domain.Principal, organizationID string, r domain.Rule) error {
	_, _, _, err := a.authorize(ctx, p, organizationID, r)
	return err
}

// accessMeta is the meta of a command on an organization's access stream.
func accessMeta(m commands.Meta, organizationID string) commands.Meta {
	m.OrganizationID = organizationID
	return m
}

// AuthorizeAny passes when the caller holds any of the permissions in its
// own organization (or has the platform bypass), e.g. api_keys read or write
// for key lists.
func (a *Access) AuthorizeAny(ctx context.Context, p domain.Principal, permissions ...string) error {
	c, _, _, err := a.authorize(ctx, p, p.OrganizationID, domain.Rule{})
	if err != nil {
		return err
	}
	if domain.PlatformBypass(c) {
		return nil
	}
	for _, perm := range permissions {
		if domain.Holds(c.Permissions, perm) {
			return nil
		}
	}
	return errs.PermissionDenied("the credential lacks permission " + strings.Join(permissions, " or "))
}
