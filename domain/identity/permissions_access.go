package identity

import (
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// An organization's access settings are one stream in its tenant: which
// services it may use, its role bundles, its users' overrides, its
// entitlement snapshot and its workspace status. One load answers every
// authorization question about the organization.
const (
	StreamAccess = "identity.access"

	ServiceAccessGranted = "identity.access.service_granted"
	ServiceAccessRevoked = "identity.access.service_revoked"
	RoleBundleSet        = "identity.access.role_bundle_set"
	UserOverridesSet     = "identity.access.user_overrides_set"
)

// AccessStreamID is the stream of one organization's access settings.
func AccessStreamID(organizationID string) string { return "access:" + organizationID }

// Service access sources.
const (
	AccessDefault   = "default"
	AccessGranted   = "granted"
	AccessProvision = "provision_from_checkout"
)

type ServiceAccessV1 struct {
	OrganizationID string    `json:"organization_id"`
	AppID          string    `json:"app_id"`
	Source         string    `json:"source,omitempty"`
	At             time.Time `json:"at"`
}

type RoleBundleSetV1 struct {
	OrganizationID string    `json:"organization_id"`
	Role           string    `json:"role"`
	Permissions    []string  `json:"permissions"`
	At             time.Time `json:"at"`
}

type UserOverridesSetV1 struct {
	OrganizationID string    `json:"organization_id"`
	UserID         string    `json:"user_id"`
	Grant          []string  `json:"grant"`
	Deny           []string  `json:"deny"`
	At             time.Time `json:"at"`
}

// OrgAccess is the write model of an organization's access stream.
type OrgAccess struct {
	organizationID string
	granted        map[string]string // app id -> source
	revoked        map[string]bool
	bundles        map[string][]string
	overrides      map[string]Overrides
	entitlement    *Entitlement
	status         string
}

func LoadOrgAccess(organizationID string, history []event.Recorded) (*OrgAccess, error) {
	a := &OrgAccess{organizationID: organizationID, granted: map[string]string{}, revoked: map[string]bool{},
		bundles: map[string][]string{}, overrides: map[string]Overrides{}, status: WorkspaceActive}
	return orgAccessFold.Load(a, history)
}

// orgAccessFold: grants, bundles, overrides and the entitlement here, the
// workspace status in workspace_status.go.
var orgAccessFold = event.Fold[*OrgAccess]{
	ServiceAccessGranted: event.Apply(func(a *OrgAccess, p ServiceAccessV1) {
		a.granted[p.AppID] = p.Source
		delete(a.revoked, p.AppID)
	}),
	ServiceAccessRevoked: event.Apply(func(a *OrgAccess, p ServiceAccessV1) {
		delete(a.granted, p.AppID)
		a.revoked[p.AppID] = true
	}),
	RoleBundleSet: event.Apply(func(a *OrgAccess, p RoleBundleSetV1) { a.bundles[p.Role] = p.Permissions }),
	UserOverridesSet: event.Apply(func(a *OrgAccess, p UserOverridesSetV1) {
		a.overrides[p.UserID] = Overrides{Grant: p.Grant, Deny: p.Deny}
	}),
	EntitlementRecorded: event.Apply(func(a *OrgAccess, p EntitlementRecordedV1) { a.entitlement = &p.AppEntitlement }),
}.With(workspaceStatusFold)

// Services are the applications the organization may use: the catalog's
// default platform services unless revoked, plus explicit grants.
func (a *OrgAccess) Services(c *Catalog) []ServiceGrant {
	seen := map[string]ServiceGrant{}
	for _, app := range c.DefaultServices() {
		if !a.revoked[app] {
			seen[app] = ServiceGrant{AppID: app, Source: AccessDefault}
		}
	}
	for app, src := range a.granted {
		seen[app] = ServiceGrant{AppID: app, Source: src}
	}
	out := make([]ServiceGrant, 0, len(seen))
	for _, g := range seen {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AppID < out[j].AppID })
	return out
}

// MayUse reports whether the organization may use an application.
func (a *OrgAccess) MayUse(c *Catalog, appID string) bool {
	return slices.ContainsFunc(a.Services(c), func(g ServiceGrant) bool { return g.AppID == appID })
}

// Bundle is the role's bundle: the organization's own or the default.
func (a *OrgAccess) Bundle(role string) RoleBundle {
	role = RoleOrDefault(role)
	if p, ok := a.bundles[role]; ok {
		return RoleBundle{Role: role, Permissions: p, Custom: true}
	}
	p := DefaultRoleBundles[role]
	if p == nil {
		p = []string{}
	}
	return RoleBundle{Role: role, Permissions: slices.Clone(p)}
}

// Overrides of one user ({} when none).
func (a *OrgAccess) Overrides(userID string) Overrides {
	o := a.overrides[userID]
	if o.Grant == nil {
		o.Grant = []string{}
	}
	if o.Deny == nil {
		o.Deny = []string{}
	}
	return o
}

// Entitlement is the snapshot stored at provisioning (nil when none).
func (a *OrgAccess) Entitlement() *Entitlement { return a.entitlement }

// EvalInput assembles an evaluation of one member of this organization.
func (a *OrgAccess) EvalInput(c *Catalog, userID, role string, platform bool) EvalInput {
	return EvalInput{Role: RoleOrDefault(role), Platform: platform, Bundle: a.Bundle(role), Override: a.Overrides(userID),
		Services: a.Services(c), Catalog: c.Entries()}
}

// GrantService lets the organization use an application (nothing when it
// already may through an explicit grant).
func (a *OrgAccess) GrantService(c *Catalog, appID, source string, now time.Time) ([]event.Change, error) {
	if _, err := c.Entry("/appId", appID); err != nil {
		return nil, err
	}
	if s, ok := a.granted[appID]; ok && (s == source || source == AccessGranted) {
		return nil, nil
	}
	return []event.Change{event.New(ServiceAccessGranted, ServiceAccessV1{OrganizationID: a.organizationID, AppID: appID, Source: source, At: now})}, nil
}

// RevokeService takes an application away, defaults included.
func (a *OrgAccess) RevokeService(c *Catalog, appID string, now time.Time) ([]event.Change, error) {
	if _, err := c.Entry("/appId", appID); err != nil {
		return nil, err
	}
	if !a.MayUse(c, appID) {
		return nil, nil
	}
	if appID == "app_platform_auth" {
		return nil, errs.Conflict("service_required", "the identity service cannot be revoked: nobody could sign in")
	}
	return []event.Change{event.New(ServiceAccessRevoked, ServiceAccessV1{OrganizationID: a.organizationID, AppID: appID, At: now})}, nil
}

func validPatterns(pointer string, patterns []string) []errs.Field {
	var f []errs.Field
	for i, p := range patterns {
		if _, err := ParsePermission(p); err != nil {
			f = append(f, errs.Field{Pointer: pointer + "/" + strconv.Itoa(i), Detail: "must look like appId.resource:action (segments may be *)"})
		}
	}
	return f
}

// SetRoleBundle replaces a role's bundle. The owner's bundle is fixed, so an
// organization cannot lock its owner out.
func (a *OrgAccess) SetRoleBundle(role string, permissions []string, now time.Time) ([]event.Change, error) {
	f := validPatterns("/permissions", permissions)
	if !slices.Contains(Roles, role) {
		f = append(f, errs.Field{Pointer: "/role", Detail: "must be one of owner, super_admin, admin, member, guest"})
	} else if role == RoleOwner {
		f = append(f, errs.Field{Pointer: "/role", Detail: "the owner's bundle is fixed"})
	}
	if len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	if slices.Equal(a.bundles[role], permissions) {
		return nil, nil
	}
	return []event.Change{event.New(RoleBundleSet, RoleBundleSetV1{OrganizationID: a.organizationID, Role: role,
		Permissions: nonNil(permissions), At: now})}, nil
}

// SetOverrides replaces a user's grants and denials.
func (a *OrgAccess) SetOverrides(userID string, o Overrides, now time.Time) ([]event.Change, error) {
	f := append(validPatterns("/grant", o.Grant), validPatterns("/deny", o.Deny)...)
	if len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	cur := a.Overrides(userID)
	if slices.Equal(cur.Grant, nonNil(o.Grant)) && slices.Equal(cur.Deny, nonNil(o.Deny)) {
		return nil, nil
	}
	return []event.Change{event.New(UserOverridesSet, UserOverridesSetV1{OrganizationID: a.organizationID, UserID: userID,
		Grant: nonNil(o.Grant), Deny: nonNil(o.Deny), At: now})}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
