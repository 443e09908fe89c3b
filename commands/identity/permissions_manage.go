package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// UserPermissions is the answer of GET /api/users/{userId}/permissions.
type UserPermissions struct {
	UserID         string `json:"userId"`
	OrganizationID string `json:"organizationId"`
	Role           string `json:"role"`
	PlatformRole   string `json:"platformRole,omitempty"`
	domain.Evaluation
}

var errNoUser = errs.NotFound("user")

// memberOf returns the user's membership of the organization; a user who is
// not a member is not visible there (404).
func (a *Access) memberOf(ctx context.Context, organizationID, userID string) (domain.Member, *domain.Organization, error) {
	u, err := a.h.loadUser(ctx, userID)
	if err != nil {
		return domain.Member{}, nil, err
	}
	if !u.Visible() {
		return domain.Member{}, nil, errNoUser
	}
	o, err := a.h.loadOrganization(ctx, organizationID)
	if err != nil {
		return domain.Member{}, nil, err
	}
	if !o.Visible() {
		return domain.Member{}, nil, errs.NotFound("organization")
	}
	m, ok := o.Member(userID)
	if !ok {
		return domain.Member{}, nil, errNoUser
	}
	return m, o, nil
}

// targetOrganization is where a user's permissions are read or managed: the
// caller's active organization, or, for a platform role, the one it names
// (default: the user's home organization).
func (a *Access) targetOrganization(ctx context.Context, p domain.Principal, userID, requested string) (string, error) {
	if requested == "" || requested == p.OrganizationID {
		if !p.PlatformWide() || requested != "" {
			return p.OrganizationID, nil
		}
		u, err := a.h.loadUser(ctx, userID)
		if err != nil {
			return "", err
		}
		if !u.Visible() {
			return "", errNoUser
		}
		return u.State().OrganizationID, nil
	}
	if !p.PlatformWide() {
		return "", errs.NotFound("organization")
	}
	return requested, nil
}

// UserPermissions evaluates a member's permissions with their sources. A
// user reads their own; others need permissions:read, or an admin role of
// the organization (an organization-scoped admin route).
func (a *Access) UserPermissions(ctx context.Context, p domain.Principal, userID, organizationID string) (UserPermissions, error) {
	org, err := a.targetOrganization(ctx, p, userID, organizationID)
	if err != nil {
		return UserPermissions{}, err
	}
	rule := RulePermissionsRead
	if p.Type == "user" && p.UserID == userID {
		rule = domain.Rule{} // one's own permissions
	}
	// Scope first (another organization or a non-member is 404), then the
	// permission (403), so a probe learns nothing about other tenants.
	if _, _, _, err := a.authorize(ctx, p, org, domain.Rule{}); err != nil {
		return UserPermissions{}, err
	}
	member, o, err := a.memberOf(ctx, org, userID)
	if err != nil {
		return UserPermissions{}, err
	}
	_, cat, acc, err := a.authorize(ctx, p, org, rule)
	if err != nil {
		return UserPermissions{}, err
	}
	platformRole := ""
	if o.Administration() {
		platformRole = member.PlatformRole
	}
	subject := domain.Caller{Type: "user", PlatformRole: platformRole, InAdministration: o.Administration()}
	ev := domain.Evaluate(acc.EvalInput(cat, userID, member.Role, domain.PlatformBypass(subject)))
	return UserPermissions{UserID: userID, OrganizationID: org, Role: domain.RoleOrDefault(member.Role), PlatformRole: platformRole, Evaluation: ev}, nil
}

// noEscalation refuses grants beyond the caller's own permissions: every
// permission a pattern reaches in the applications the organization may use
// (the only ones a bundle or override evaluates over) must be one the
// caller holds.
func noEscalation(c domain.Caller, cat *domain.Catalog, acc *domain.OrgAccess, pointer string, patterns []string) error {
	if domain.PlatformBypass(c) {
		return nil
	}
	usable := map[string]bool{}
	for _, g := range acc.Services(cat) {
		usable[g.AppID] = true
	}
	for _, pat := range patterns {
		p, err := domain.ParsePermission(pat)
		if err != nil {
			continue // the domain names malformed patterns
		}
		for _, e := range cat.Entries() {
			if !usable[e.AppID] {
				continue
			}
			for _, s := range e.Scopes {
				perm := domain.Qualify(e.AppID, s)
				q, _ := domain.ParsePermission(perm)
				if p.Matches(q) && !domain.Holds(c.Permissions, perm) {
					return errs.PermissionDenied(pointer + ": " + pat + " would grant " + perm + ", which the caller does not hold")
				}
			}
		}
	}
	return nil
}

// SetUserOverrides is the input of PUT /api/users/{userId}/permission-overrides.
type SetUserOverrides struct {
	UserID         string   `json:"userId"`
	OrganizationID string   `json:"organizationId"`
	Grant          []string `json:"grant"`
	Deny           []string `json:"deny"`
}

// SetUserOverrides replaces a member's grants and denials (user-permission
// management: an organization-scoped admin route).
func (a *Access) SetUserOverrides(ctx context.Context, m commands.Meta, p domain.Principal, in SetUserOverrides) (commands.Result[UserPermissions], error) {
	var zero commands.Result[UserPermissions]
	org, err := a.targetOrganization(ctx, p, in.UserID, in.OrganizationID)
	if err != nil {
		return zero, err
	}
	if _, _, _, err := a.authorize(ctx, p, org, domain.Rule{}); err != nil {
		return zero, err
	}
	member, o, err := a.memberOf(ctx, org, in.UserID)
	if err != nil {
		return zero, err
	}
	caller, cat, acc, err := a.authorize(ctx, p, org, RulePermissionsManage)
	if err != nil {
		return zero, err
	}
	if err := domain.CheckOutranks(caller, member.Role); err != nil {
		return zero, err
	}
	if err := noEscalation(caller, cat, acc, "/grant", in.Grant); err != nil {
		return zero, err
	}
	return commands.Execute(ctx, a.h.store, accessMeta(m, org), domain.StreamAccess, domain.AccessStreamID(org), loadOrgAccess(org),
		func(acc *domain.OrgAccess) ([]event.Change, error) {
			return acc.SetOverrides(in.UserID, domain.Overrides{Grant: in.Grant, Deny: in.Deny}, a.now())
		},
		func(acc *domain.OrgAccess) UserPermissions {
			platform := o.Administration() && domain.IsPlatformRole(member.PlatformRole)
			ev := domain.Evaluate(acc.EvalInput(cat, in.UserID, member.Role, platform))
			return UserPermissions{UserID: in.UserID, OrganizationID: org, Role: domain.RoleOrDefault(member.Role), Evaluation: ev}
		})
}

// SetRoleBundle is the input of PUT /api/role-bundles/{role}.
type SetRoleBundle struct {
	Role        string   `json:"role"`
	Permissions []string `json:"permissions"`
}

// SetRoleBundle replaces a role's bundle in the caller's organization.
func (a *Access) SetRoleBundle(ctx context.Context, m commands.Meta, p domain.Principal, in SetRoleBundle) (commands.Result[domain.RoleBundle], error) {
	var zero commands.Result[domain.RoleBundle]
	org := p.OrganizationID
	caller, cat, acc, err := a.authorize(ctx, p, org, RulePermissionsManage)
	if err != nil {
		return zero, err
	}
	if err := domain.CheckOutranks(caller, in.Role); err != nil {
		return zero, err
	}
	if err := noEscalation(caller, cat, acc, "/permissions", in.Permissions); err != nil {
		return zero, err
	}
	return commands.Run(ctx, a.h.store, accessMeta(m, org), domain.StreamAccess, domain.AccessStreamID(org),
		func(history []event.Recorded) ([]event.Change, domain.RoleBundle, error) {
			acc, err := domain.LoadOrgAccess(org, history)
			if err != nil {
				return nil, domain.RoleBundle{}, err
			}
			changes, err := acc.SetRoleBundle(in.Role, in.Permissions, a.now())
			if err != nil {
				return nil, domain.RoleBundle{}, err
			}
			return changes, domain.RoleBundle{Role: in.Role, Permissions: in.Permissions, Custom: true}, nil
		})
}

// ServiceAccess is the answer of the service-access routes.
type ServiceAccess struct {
	OrganizationID string                `json:"organizationId"`
	Services       []domain.ServiceGrant `json:"services"`
	Status         string                `json:"status"`
	Settings       OrganizationSettings  `json:"settings"`
}

// OrganizationSettings holds organizations.settings (appEntitlement).
type OrganizationSettings struct {
	AppEntitlement *domain.Entitlement `json:"appEntitlement"`
}

func serviceAccessOf(org string, cat *domain.Catalog, acc *domain.OrgAccess) ServiceAccess {
	return ServiceAccess{OrganizationID: org, Services: acc.Services(cat), Status: acc.Status(),
		Settings: OrganizationSettings{AppEntitlement: acc.Entitlement()}}
}

// GetServiceAccess reads an organization's services, status and settings.
func (a *Access) GetServiceAccess(ctx context.Context, p domain.Principal, organizationID string) (ServiceAccess, error) {
	_, cat, acc, err := a.authorize(ctx, p, organizationID, domain.Rule{Permission: PermServiceAccessRead, OrgAdminRoute: true})
	if err != nil {
		return ServiceAccess{}, err
	}
	return serviceAccessOf(organizationID, cat, acc), nil
}

// GrantService lets an organization use an application. Unchecked: callers
// are provisioning, developer-app registration and SetServiceAccess.
func (a *Access) GrantService(ctx context.Context, m commands.Meta, organizationID, appID, source string) (commands.Result[ServiceAccess], error) {
	return a.changeAccess(ctx, m, organizationID, func(cat *domain.Catalog, acc *domain.OrgAccess) ([]event.Change, error) {
		return acc.GrantService(cat, appID, source, a.now())
	})
}

// SetServiceAccess grants or revokes an application for an organization.
// What an organization may use is decided by the platform (billing,
// entitlements), so only a platform role may change it.
func (a *Access) SetServiceAccess(ctx context.Context, m commands.Meta, p domain.Principal, organizationID, appID string, enabled bool) (commands.Result[ServiceAccess], error) {
	caller, _, _, err := a.authorize(ctx, p, organizationID, RuleServiceAccessEdit)
	if err != nil {
		return commands.Result[ServiceAccess]{}, err
	}
	if !domain.PlatformBypass(caller) {
		return commands.Result[ServiceAccess]{}, errs.PermissionDenied("only a platform role changes which services an organization may use")
	}
	return a.changeAccess(ctx, m, organizationID, func(cat *domain.Catalog, acc *domain.OrgAccess) ([]event.Change, error) {
		if enabled {
			return acc.GrantService(cat, appID, domain.AccessGranted, a.now())
		}
		return acc.RevokeService(cat, appID, a.now())
	})
}

// SetWorkspaceStatus suspends, reinstates or revokes a developer workspace
// (platform roles only).
func (a *Access) SetWorkspaceStatus(ctx context.Context, m commands.Meta, p domain.Principal, organizationID, status, reason string) (commands.Result[ServiceAccess], error) {
	caller, _, _, err := a.authorize(ctx, p, organizationID, domain.Rule{Permission: PermServiceAccessManage})
	if err != nil {
		return commands.Result[ServiceAccess]{}, err
	}
	if !domain.PlatformBypass(caller) {
		return commands.Result[ServiceAccess]{}, errs.PermissionDenied("only a platform role suspends or reinstates a workspace")
	}
	return a.changeAccess(ctx, m, organizationID, func(_ *domain.Catalog, acc *domain.OrgAccess) ([]event.Change, error) {
		return acc.SetWorkspaceStatus(status, reason, a.now())
	})
}

func (a *Access) changeAccess(ctx context.Context, m commands.Meta, org string,
	decide func(*domain.Catalog, *domain.OrgAccess) ([]event.Change, error)) (commands.Result[ServiceAccess], error) {
	cat, err := a.Catalog(ctx)
	if err != nil {
		return commands.Result[ServiceAccess]{}, err
	}
	return commands.Execute(ctx, a.h.store, accessMeta(m, org), domain.StreamAccess, domain.AccessStreamID(org), loadOrgAccess(org),
		func(acc *domain.OrgAccess) ([]event.Change, error) { return decide(cat, acc) },
		func(acc *domain.OrgAccess) ServiceAccess { return serviceAccessOf(org, cat, acc) })
}
