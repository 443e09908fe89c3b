package identity

import (
	"slices"
	"strings"

	"github.com/platform/backend/domain/principal"
)

// The one permission model: a principal's Permissions are computed here at
// validation, and every route checks them with Holds.

// PlatformPermissions is what a platform role holds in the administration
// organization: every permission, platform scopes included.
var PlatformPermissions = []string{"*.*:*"}

// MemberPermissions evaluates a session principal's permissions in its
// active organization: the platform bypass, or the evaluated role bundle,
// overrides and organization service access.
func MemberPermissions(in EvalInput) []string {
	if in.Platform {
		return PlatformPermissions
	}
	return Evaluate(in).EffectivePermissions
}

// SessionPermissions are a session's permissions: the member's, except
// that a session handed to an application that is not first-party (SSO
// handoff to a developer app) holds only that application's permissions,
// never the identity service's or another app's.
func SessionPermissions(in EvalInput, service string, cat *Catalog) []string {
	perms := MemberPermissions(in)
	if service == "" {
		return perms
	}
	if e, err := cat.Entry("", service); err == nil && e.FirstParty {
		return perms
	}
	if in.Platform {
		return []string{Qualify(service, "*:*")}
	}
	out := []string{}
	for _, p := range perms {
		if strings.HasPrefix(p, service+".") {
			out = append(out, p)
		}
	}
	return out
}

// KeyPermissions qualifies an API key's scopes with its target application,
// while the organization may use it. A key without a target (bootstrap keys)
// holds each scope in every usable application that declares it; `*` is
// every declared scope. Platform scopes are only for keys of the
// administration organization (operators' keys) that name them.
//
// Resource bindings narrow a bound key: a scope counts only where a binding
// (on the organization's workspace, the one bindable resource) allows it,
// within the binding's access level.
func KeyPermissions(scopes []string, service string, bindings []ResourceBinding, administration bool, cat *Catalog, acc *OrgAccess) []string {
	out := []string{}
	usable := map[string]bool{}
	for _, g := range acc.Services(cat) {
		usable[g.AppID] = true
	}
	for _, e := range cat.Entries() {
		if (service != "" && e.AppID != service) || !usable[e.AppID] {
			continue
		}
		for _, declared := range e.Scopes {
			if (slices.Contains(scopes, declared) || slices.Contains(scopes, "*")) && bindingsAllow(bindings, declared) {
				out = append(out, Qualify(e.AppID, declared))
			}
		}
		for _, declared := range e.PlatformScopes {
			if administration && slices.Contains(scopes, declared) {
				out = append(out, Qualify(e.AppID, declared))
			}
		}
	}
	return out
}

// OwnerOfDeletedPermissions: the owners of a soft-deleted organization may
// still see it, restore it or delete it permanently, and nothing else.
var OwnerOfDeletedPermissions = []string{
	"app_platform_auth.organizations:read", "app_platform_auth.organizations:restore", "app_platform_auth.organizations:delete",
}

// bindingsAllow: an unbound key holds its scopes; a bound one only what a
// binding allows at its access level.
func bindingsAllow(bindings []ResourceBinding, scope string) bool {
	if len(bindings) == 0 {
		return true
	}
	for _, b := range bindings {
		if slices.Contains(b.AllowedScopes, scope) && accessLevelAllows(b.AccessLevel, scope) {
			return true
		}
	}
	return false
}

// accessLevelAllows: read allows read actions; write everything but
// management; admin everything (principal.LevelAllows, which services
// check per workspace).
func accessLevelAllows(level, scope string) bool { return principal.LevelAllows(level, scope) }
