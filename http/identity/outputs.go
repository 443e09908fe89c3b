package identity

import (
	"encoding/json"
	"fmt"

	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	httpapi "github.com/platform/backend/http"
	accessview "github.com/platform/backend/projections/access"
	identityview "github.com/platform/backend/projections/identity"
)

// Output schemas of the identity service's actions (httpapi.OutputOf and friends), by
// action name: the identity service is composed from parts in several files,
// and its answers are described here in one place. An action that declares
// its output in its own descriptor keeps it; Service fills the others
// from this table (withOutputs), and NewHandler refuses an action without one.

var (
	roleValues      = []string{"owner", "super_admin", "admin", "member", "guest"}
	platformValues  = []string{"platform_super_admin", "platform_admin"}
	lifecycleValues = []string{domain.StateActive, domain.StateDeleted, domain.StateErased}

	organizationCreatedOut = httpapi.OutputOf(identitycmd.OrganizationCreated{}, httpapi.EnumOf("state", lifecycleValues...), httpapi.FormatOf("organization_id", "uuid"))
	organizationOut        = httpapi.OutputOf(identityview.Organization{}, httpapi.EnumOf("state", lifecycleValues...), httpapi.FormatOf("organization_id", "uuid"))
	memberOut              = httpapi.OutputOf(identityview.Member{}, httpapi.EnumOf("role", roleValues...), httpapi.EnumOf("platform_role", platformValues...),
		httpapi.EnumOf("user_state", lifecycleValues...))
	memberStateOut = httpapi.OutputOf(identitycmd.MemberState{}, httpapi.EnumOf("role", roleValues...), httpapi.EnumOf("platform_role", platformValues...))
	// memberRemovedOut: the membership ended, so the role is empty.
	memberRemovedOut = httpapi.OutputOf(identitycmd.MemberState{}, httpapi.EnumOf("role", append([]string{""}, roleValues...)...),
		httpapi.EnumOf("platform_role", platformValues...))
	userOut       = httpapi.OutputOf(identityview.User{}, httpapi.EnumOf("state", lifecycleValues...), httpapi.FormatOf("user_id", "uuid"))
	orgLifecycle  = httpapi.OutputOf(identitycmd.OrganizationLifecycle{}, httpapi.EnumOf("state", lifecycleValues...))
	userLifecycle = httpapi.OutputOf(identitycmd.UserLifecycle{}, httpapi.EnumOf("state", lifecycleValues...))

	// acceptedOut is the one answer of the routes that never tell whether an
	// address has an account (sign-up, password reset request).
	acceptedOut = httpapi.ObjectOf(map[string]json.RawMessage{"status": httpapi.Raw(`{"const":"accepted"}`), "detail": httpapi.Raw(httpapi.StringOutput)})

	// sessionTokensOut is a started session (sessionBody): the refresh token
	// in the body only when asked for (returnRefreshToken, non-browser clients).
	sessionTokensOut = httpapi.OutputOf(sessionBody{}, httpapi.WithSchema("token_type", `{"const":"Bearer"}`),
		httpapi.EnumOf("role", roleValues...), httpapi.EnumOf("platform_role", platformValues...))

	loggedOutOut = httpapi.OutputOf(identitycmd.LoggedOut{}, httpapi.EnumOf("sessions_ended", "current", "all"))

	invitationViewOut = httpapi.OutputOf(identitycmd.InvitationView{}, httpapi.EnumOf("role", roleValues...),
		httpapi.EnumOf("state", domain.InvitationStatePending, domain.InvitationStateAccepted, domain.InvitationStateRevoked, domain.InvitationStateExpired))

	keyBindingsOpts = []httpapi.OutputOption{httpapi.EnumOf("resource_bindings[].accessLevel", "read", "write", "admin")}
	apiKeyOut       = httpapi.OutputOf(identitycmd.APIKeyCreated{}, append(keyBindingsOpts, httpapi.EnumOf("state", "active", domain.KeyRevoked))...)
	apiKeyListOut   = httpapi.ObjectOf(map[string]json.RawMessage{"keys": httpapi.ArrayOf(httpapi.OutputOf(accessview.KeyView{},
		append(keyBindingsOpts, httpapi.EnumOf("state", "active", domain.KeyRevoked))...))})

	userPermissionsOut = httpapi.OutputOf(identitycmd.UserPermissions{}, httpapi.EnumOf("role", roleValues...), httpapi.EnumOf("platformRole", platformValues...),
		httpapi.EnumOf("entries[].sources[].effect", "allow", "deny"))
	serviceAccessOut = httpapi.OutputOf(identitycmd.ServiceAccess{}, httpapi.EnumOf("status", "active", "suspended", "revoked"),
		httpapi.EnumOf("settings.appEntitlement.mode", "count", "all", "free"))
	workspaceListOut = httpapi.OutputOf(domain.WorkspaceList{})
	catalogEntryOut  = httpapi.OutputOf(domain.CatalogEntry{}, httpapi.EnumOf("surface_kind", "app", "platform", "console", "developer_app"),
		httpapi.Nullable("resource_types")) // null for an application without resource types
	preferencesOut = httpapi.OutputOf(domain.Preferences{}, httpapi.EnumOf("tileSize", "small", "medium", "large"), httpapi.EnumOf("theme", "light", "dark"))
)

// identityOutputs are the output schemas of identity actions whose
// descriptors do not carry one.
var identityOutputs = map[string]json.RawMessage{
	"app_platform_auth.organizations.create":                 organizationCreatedOut,
	"app_platform_auth.organizations.get":                    organizationOut,
	"app_platform_auth.organizations.export":                 httpapi.OutputOf(identityview.OrganizationExport{}, httpapi.EnumOf("organization.state", lifecycleValues...), httpapi.EnumOf("members[].role", roleValues...), httpapi.EnumOf("members[].platform_role", platformValues...), httpapi.EnumOf("members[].user_state", lifecycleValues...)),
	"app_platform_auth.organizations.members.list":           httpapi.ObjectOf(map[string]json.RawMessage{"members": httpapi.ArrayOf(memberOut)}),
	"app_platform_auth.organizations.members.update":         memberStateOut,
	"app_platform_auth.organizations.members.remove":         memberRemovedOut,
	"app_platform_auth.organizations.delete":                 orgLifecycle,
	"app_platform_auth.organizations.restore":                orgLifecycle,
	"app_platform_auth.organizations.delete_permanently":     orgLifecycle,
	"app_platform_auth.organizations.slug_availability":      httpapi.ObjectOf(map[string]json.RawMessage{"available": httpapi.Raw(httpapi.BoolOutput), "slug": httpapi.Raw(httpapi.StringOutput), "reason": httpapi.Raw(`{"type":"string","enum":["empty","invalid","reserved","taken","available"]}`)}),
	"app_platform_auth.users.create":                         httpapi.ObjectOf(map[string]json.RawMessage{"status": httpapi.Raw(`{"const":"accepted"}`), "organization_id": httpapi.Raw(httpapi.StringOutput), "role": httpapi.Raw(`{"type":"string","enum":["owner","super_admin","admin","member","guest"]}`), "detail": httpapi.Raw(httpapi.StringOutput)}),
	"app_platform_auth.users.get":                            userOut,
	"app_platform_auth.users.export":                         httpapi.OutputOf(identityview.UserExport{}, httpapi.EnumOf("user.state", lifecycleValues...), httpapi.EnumOf("memberships[].role", roleValues...), httpapi.EnumOf("memberships[].platform_role", platformValues...), httpapi.EnumOf("memberships[].user_state", lifecycleValues...)),
	"app_platform_auth.users.delete":                         userLifecycle,
	"app_platform_auth.users.restore":                        userLifecycle,
	"app_platform_auth.users.delete_permanently":             userLifecycle,
	"app_platform_auth.privacy.maintenance.run":              httpapi.OutputOf(identitycmd.PrivacyReport{}),
	"app_platform_auth.sessions.logout":                      loggedOutOut,
	"app_platform_auth.sessions.logout_everywhere":           loggedOutOut,
	"app_platform_auth.users.register":                       acceptedOut,
	"app_platform_auth.users.register.confirm":               httpapi.OutputOf(identitycmd.Registered{}, httpapi.WithSchema("session", string(sessionTokensOut)), httpapi.EnumOf("organization.state", lifecycleValues...), httpapi.EnumOf("user.state", lifecycleValues...), httpapi.EnumOf("user.role", roleValues...)),
	"app_platform_auth.users.password.change":                httpapi.OutputOf(identitycmd.PasswordChanged{}, httpapi.WithSchema("session", string(sessionTokensOut)), httpapi.EnumOf("sessions_ended", "all_previous")),
	"app_platform_auth.password_reset.request":               acceptedOut,
	"app_platform_auth.password_reset.complete":              httpapi.OutputOf(identitycmd.PasswordReset{}, httpapi.EnumOf("sessions_ended", "all")),
	"app_platform_auth.organizations.members.password_reset": httpapi.OutputOf(identitycmd.PasswordResetSent{}),
	"app_platform_auth.invitations.list":                     httpapi.ObjectOf(map[string]json.RawMessage{"invitations": httpapi.ArrayOf(invitationViewOut)}),
	"app_platform_auth.invitations.accept":                   httpapi.OutputOf(identitycmd.InvitationAccepted{}, httpapi.WithSchema("session", string(sessionTokensOut)), httpapi.EnumOf("role", roleValues...)),
	"app_platform_auth.mfa.totp.confirm":                     httpapi.OutputOf(identitycmd.MFAConfirmation{}, httpapi.EnumOf("methods[]", domain.MFAMethodTOTP, domain.MFAMethodBackupCode)),
	"app_platform_auth.api_keys.options":                     httpapi.OutputOf(domain.KeyOptions{}, httpapi.EnumOf("resources[].resources[].accessLevel", "read", "write", "admin")),
	"app_platform_auth.api_keys.create":                      apiKeyOut,
	"app_platform_auth.api_keys.update":                      apiKeyOut,
	"app_platform_auth.api_keys.revoke":                      apiKeyOut,
	"app_platform_auth.api_keys.list":                        apiKeyListOut,
	"app_platform_auth.permissions.get":                      userPermissionsOut,
	"app_platform_auth.permissions.overrides.set":            userPermissionsOut,
	"app_platform_auth.role_bundles.set":                     httpapi.OutputOf(domain.RoleBundle{}, httpapi.EnumOf("role", roleValues...)),
	"app_platform_auth.service_access.get":                   serviceAccessOut,
	"app_platform_auth.service_access.grant":                 serviceAccessOut,
	"app_platform_auth.service_access.revoke":                serviceAccessOut,
	"app_platform_auth.workspaces.status.set":                serviceAccessOut,
	"app_platform_auth.workspaces.list":                      workspaceListOut,
	"app_platform_auth.workspaces.create":                    workspaceListOut,
	"app_platform_auth.workspaces.rename":                    workspaceListOut,
	"app_platform_auth.workspaces.default.set":               workspaceListOut,
	"app_platform_auth.catalog.list":                         httpapi.ObjectOf(map[string]json.RawMessage{"entries": httpapi.ArrayOf(catalogEntryOut)}),
	"app_platform_auth.developer_apps.register":              catalogEntryOut,
	"app_platform_auth.sso.handoff_code.create":              httpapi.OutputOf(identitycmd.SSOHandoffAnswer{}, httpapi.FormatOf("callback_url", "uri")),
	"app_platform_auth.sso.code.exchange":                    sessionTokensOut,
	"app_platform_auth.app_switcher.preferences.get":         preferencesOut,
	"app_platform_auth.app_switcher.preferences.set":         preferencesOut,
	"app_platform_auth.service_tokens.issue": httpapi.ObjectOf(map[string]json.RawMessage{"token": httpapi.Raw(httpapi.StringOutput), "token_type": httpapi.Raw(`{"const":"Bearer"}`),
		"service": httpapi.Raw(httpapi.StringOutput), "expires_in": httpapi.Raw(`{"type":"integer","minimum":60,"maximum":3600}`)}),
}

// withOutputs fills the output schema of each action that has none from
// outs. An action that declares one and is also in outs is a mistake (two
// places saying what it answers): it panics, at start-up.
func withOutputs(actions []httpapi.Action, outs map[string]json.RawMessage) []httpapi.Action {
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
