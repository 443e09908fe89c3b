package httpapi

import (
	"encoding/json"
	"fmt"

	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	accessview "github.com/platform/backend/projections/access"
	identityview "github.com/platform/backend/projections/identity"
)

// Output schemas of the identity service's actions (http/outputs.go), by
// action name: the identity service is composed from parts in several files,
// and its answers are described here in one place. An action that declares
// its output in its own descriptor keeps it; IdentityService fills the others
// from this table (withOutputs), and NewHandler refuses an action without one.

var (
	roleValues      = []string{"owner", "super_admin", "admin", "member", "guest"}
	platformValues  = []string{"platform_super_admin", "platform_admin"}
	lifecycleValues = []string{domain.StateActive, domain.StateDeleted, domain.StateErased}

	organizationCreatedOut = outputOf(identitycmd.OrganizationCreated{}, enumOf("state", lifecycleValues...), formatOf("organization_id", "uuid"))
	organizationOut        = outputOf(identityview.Organization{}, enumOf("state", lifecycleValues...), formatOf("organization_id", "uuid"))
	memberOut              = outputOf(identityview.Member{}, enumOf("role", roleValues...), enumOf("platform_role", platformValues...),
		enumOf("user_state", lifecycleValues...))
	memberStateOut = outputOf(identitycmd.MemberState{}, enumOf("role", roleValues...), enumOf("platform_role", platformValues...))
	// memberRemovedOut: the membership ended, so the role is empty.
	memberRemovedOut = outputOf(identitycmd.MemberState{}, enumOf("role", append([]string{""}, roleValues...)...),
		enumOf("platform_role", platformValues...))
	userOut       = outputOf(identityview.User{}, enumOf("state", lifecycleValues...), formatOf("user_id", "uuid"))
	orgLifecycle  = outputOf(identitycmd.OrganizationLifecycle{}, enumOf("state", lifecycleValues...))
	userLifecycle = outputOf(identitycmd.UserLifecycle{}, enumOf("state", lifecycleValues...))

	// acceptedOut is the one answer of the routes that never tell whether an
	// address has an account (sign-up, password reset request).
	acceptedOut = objectOf(map[string]json.RawMessage{"status": raw(`{"const":"accepted"}`), "detail": raw(strOut)})

	// sessionTokensOut is a started session (sessionBody): the refresh token
	// in the body only when asked for (returnRefreshToken, non-browser clients).
	sessionTokensOut = outputOf(sessionBody{}, withSchema("token_type", `{"const":"Bearer"}`),
		enumOf("role", roleValues...), enumOf("platform_role", platformValues...))

	loggedOutOut = outputOf(identitycmd.LoggedOut{}, enumOf("sessions_ended", "current", "all"))

	invitationViewOut = outputOf(identitycmd.InvitationView{}, enumOf("role", roleValues...),
		enumOf("state", domain.InvitationStatePending, domain.InvitationStateAccepted, domain.InvitationStateRevoked, domain.InvitationStateExpired))

	keyBindingsOpts = []outOpt{enumOf("resource_bindings[].accessLevel", "read", "write", "admin")}
	apiKeyOut       = outputOf(identitycmd.APIKeyCreated{}, append(keyBindingsOpts, enumOf("state", "active", domain.KeyRevoked))...)
	apiKeyListOut   = objectOf(map[string]json.RawMessage{"keys": arrayOf(outputOf(accessview.KeyView{},
		append(keyBindingsOpts, enumOf("state", "active", domain.KeyRevoked))...))})

	userPermissionsOut = outputOf(identitycmd.UserPermissions{}, enumOf("role", roleValues...), enumOf("platformRole", platformValues...),
		enumOf("entries[].sources[].effect", "allow", "deny"))
	serviceAccessOut = outputOf(identitycmd.ServiceAccess{}, enumOf("status", "active", "suspended", "revoked"),
		enumOf("settings.appEntitlement.mode", "count", "all", "free"))
	catalogEntryOut = outputOf(domain.CatalogEntry{}, enumOf("surface_kind", "app", "platform", "console", "developer_app"),
		nullable("resource_types")) // null for an application without resource types
	preferencesOut = outputOf(domain.Preferences{}, enumOf("tileSize", "small", "medium", "large"), enumOf("theme", "light", "dark"))
)

// identityOutputs are the output schemas of identity actions whose
// descriptors do not carry one.
var identityOutputs = map[string]json.RawMessage{
	"app_platform_auth.organizations.create":                 organizationCreatedOut,
	"app_platform_auth.organizations.get":                    organizationOut,
	"app_platform_auth.organizations.export":                 outputOf(identityview.OrganizationExport{}, enumOf("organization.state", lifecycleValues...), enumOf("members[].role", roleValues...), enumOf("members[].platform_role", platformValues...), enumOf("members[].user_state", lifecycleValues...)),
	"app_platform_auth.organizations.members.list":           objectOf(map[string]json.RawMessage{"members": arrayOf(memberOut)}),
	"app_platform_auth.organizations.members.update":         memberStateOut,
	"app_platform_auth.organizations.members.remove":         memberRemovedOut,
	"app_platform_auth.organizations.delete":                 orgLifecycle,
	"app_platform_auth.organizations.restore":                orgLifecycle,
	"app_platform_auth.organizations.delete_permanently":     orgLifecycle,
	"app_platform_auth.organizations.slug_availability":      objectOf(map[string]json.RawMessage{"available": raw(boolOut), "slug": raw(strOut), "reason": raw(`{"type":"string","enum":["empty","invalid","reserved","taken","available"]}`)}),
	"app_platform_auth.users.create":                         objectOf(map[string]json.RawMessage{"status": raw(`{"const":"accepted"}`), "organization_id": raw(strOut), "role": raw(`{"type":"string","enum":["owner","super_admin","admin","member","guest"]}`), "detail": raw(strOut)}),
	"app_platform_auth.users.get":                            userOut,
	"app_platform_auth.users.export":                         outputOf(identityview.UserExport{}, enumOf("user.state", lifecycleValues...), enumOf("memberships[].role", roleValues...), enumOf("memberships[].platform_role", platformValues...), enumOf("memberships[].user_state", lifecycleValues...)),
	"app_platform_auth.users.delete":                         userLifecycle,
	"app_platform_auth.users.restore":                        userLifecycle,
	"app_platform_auth.users.delete_permanently":             userLifecycle,
	"app_platform_auth.privacy.maintenance.run":              outputOf(identitycmd.PrivacyReport{}),
	"app_platform_auth.sessions.logout":                      loggedOutOut,
	"app_platform_auth.sessions.logout_everywhere":           loggedOutOut,
	"app_platform_auth.users.register":                       acceptedOut,
	"app_platform_auth.users.register.confirm":               outputOf(identitycmd.Registered{}, withSchema("session", string(sessionTokensOut)), enumOf("organization.state", lifecycleValues...), enumOf("user.state", lifecycleValues...), enumOf("user.role", roleValues...)),
	"app_platform_auth.users.password.change":                outputOf(identitycmd.PasswordChanged{}, withSchema("session", string(sessionTokensOut)), enumOf("sessions_ended", "all_previous")),
	"app_platform_auth.password_reset.request":               acceptedOut,
	"app_platform_auth.password_reset.complete":              outputOf(identitycmd.PasswordReset{}, enumOf("sessions_ended", "all")),
	"app_platform_auth.organizations.members.password_reset": outputOf(identitycmd.PasswordResetSent{}),
	"app_platform_auth.invitations.list":                     objectOf(map[string]json.RawMessage{"invitations": arrayOf(invitationViewOut)}),
	"app_platform_auth.invitations.accept":                   outputOf(identitycmd.InvitationAccepted{}, withSchema("session", string(sessionTokensOut)), enumOf("role", roleValues...)),
	"app_platform_auth.mfa.totp.confirm":                     outputOf(identitycmd.MFAConfirmation{}, enumOf("methods[]", domain.MFAMethodTOTP, domain.MFAMethodBackupCode)),
	"app_platform_auth.api_keys.options":                     outputOf(domain.KeyOptions{}, enumOf("resources[].resources[].accessLevel", "read", "write", "admin")),
	"app_platform_auth.api_keys.create":                      apiKeyOut,
	"app_platform_auth.api_keys.update":                      apiKeyOut,
	"app_platform_auth.api_keys.revoke":                      apiKeyOut,
	"app_platform_auth.api_keys.list":                        apiKeyListOut,
	"app_platform_auth.permissions.get":                      userPermissionsOut,
	"app_platform_auth.permissions.overrides.set":            userPermissionsOut,
	"app_platform_auth.role_bundles.set":                     outputOf(domain.RoleBundle{}, enumOf("role", roleValues...)),
	"app_platform_auth.service_access.get":                   serviceAccessOut,
	"app_platform_auth.service_access.grant":                 serviceAccessOut,
	"app_platform_auth.service_access.revoke":                serviceAccessOut,
	"app_platform_auth.workspaces.status.set":                serviceAccessOut,
	"app_platform_auth.catalog.list":                         objectOf(map[string]json.RawMessage{"entries": arrayOf(catalogEntryOut)}),
	"app_platform_auth.developer_apps.register":              catalogEntryOut,
	"app_platform_auth.sso.handoff_code.create":              outputOf(identitycmd.SSOHandoffAnswer{}, formatOf("callback_url", "uri")),
	"app_platform_auth.sso.code.exchange":                    sessionTokensOut,
	"app_platform_auth.app_switcher.preferences.get":         preferencesOut,
	"app_platform_auth.app_switcher.preferences.set":         preferencesOut,
	"app_platform_auth.service_tokens.issue": objectOf(map[string]json.RawMessage{"token": raw(strOut), "token_type": raw(`{"const":"Bearer"}`),
		"service": raw(strOut), "expires_in": raw(`{"type":"integer","minimum":60,"maximum":3600}`)}),
}

// withOutputs fills the output schema of each action that has none from
// outs. An action that declares one and is also in outs is a mistake (two
// places saying what it answers): it panics, at start-up.
func withOutputs(actions []Action, outs map[string]json.RawMessage) []Action {
	for i := range actions {
		a := &actions[i]
		out, ok := outs[a.Name]
		switch {
		case ok && len(a.OutputSchema) > 0:
			panic(fmt.Sprintf("action %s declares its output schema and is in the identity output table", a.Name))
		case ok:
			a.OutputSchema = out
		}
	}
	return actions
}
