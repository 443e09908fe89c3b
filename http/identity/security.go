package identity

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	httpapi "github.com/platform/backend/http"
	identityview "github.com/platform/backend/projections/identity"
)

// SecurityDeps are what the security part of the identity service calls:
// MFA (TOTP and backup codes), the second sign-in step, and session lists.
type SecurityDeps struct {
	Commands *identitycmd.Handlers
	Access   *identitycmd.Access // Authorize for the organization admin routes
	Web      SessionWeb
	Log      *slog.Logger
}

var mfaCodeSchema = httpapi.WithMember(httpapi.LineSchema(6, 40), "description",
	"the 6-digit code of the authenticator app, or an unused backup code (xxxx-xxxx-xxxx-xxxx)")

// Output schemas of the security part (identity_outputs.go).
var (
	mfaStatusOut = string(httpapi.OutputOf(identitycmd.MFAStatus{},
		httpapi.EnumOf("methods[]", domain.MFAMethodTOTP, domain.MFAMethodBackupCode)))
	sessionListOut   = string(httpapi.OutputOf(identitycmd.SessionList{}))
	sessionsEndedOut = string(httpapi.OutputOf(identitycmd.SessionsEnded{}, httpapi.WithSchema("sessions_ended", `{"type":"integer","minimum":0}`)))
	mfaEnrollmentOut = string(httpapi.OutputOf(identitycmd.MFAEnrollment{}, httpapi.WithSchema("algorithm", `{"const":"SHA1"}`),
		httpapi.WithSchema("digits", `{"const":6}`), httpapi.WithSchema("period", `{"const":30}`), httpapi.FormatOf("otpauth_uri", "uri")))
)

// SecurityPart: TOTP enrollment, confirmation, status and disable
// for the signed-in user; POST /login/mfa (the second step of a sign-in
// answered 401 mfa_required); the user's own sessions; and the
// organization admin routes on a member's sessions and MFA.
func SecurityPart(d SecurityDeps) Part {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	cmds, access, web := d.Commands, d.Access, d.Web
	member := map[string]string{"orgId": uuidString, "userId": uuidString}
	memberSession := map[string]string{"orgId": uuidString, "userId": uuidString, "sessionId": uuidString}
	return Part{Actions: []httpapi.Action{
		httpapi.NoStore(httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.mfa.get", Method: http.MethodGet, Path: "/api/me/mfa", ReadOnly: true, AuthorizationMode: httpapi.AuthRuntime,
			Summary:      "The signed-in user's multi-factor state: enabled, pending enrollment, backup codes left (never a secret)",
			OutputSchema: []byte(mfaStatusOut),
		}, func(ctx context.Context, p domain.Principal, _ httpapi.NoInput) (identitycmd.MFAStatus, error) {
			return cmds.GetMFAStatus(ctx, p)
		})),
		httpapi.NoStore(httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.mfa.totp.enroll", Method: http.MethodPost, Path: "/api/me/mfa/totp", AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Start TOTP enrollment (RFC 6238, SHA-1, 6 digits, 30 s) for the signed-in user: a new secret, base32 and as an " +
				"otpauth:// URI, shown once. MFA is on only after mfa.totp.confirm; a pending enrollment is replaced",
			OutputSchema: []byte(mfaEnrollmentOut),
		}, func(ctx context.Context, m commands.Meta, p domain.Principal, _ httpapi.NoInput) (identitycmd.MFAEnrollment, error) {
			return cmds.StartMFAEnrollment(ctx, m, p)
		})),
		httpapi.NoStore(httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.mfa.totp.confirm", Method: http.MethodPost, Path: "/api/me/mfa/totp/confirm", AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Confirm the pending TOTP secret with a current code: MFA is on, and 10 one-time backup codes are shown once " +
				"(only their hashes are kept). A wrong code is 422 on /code",
			InputSchema: httpapi.Object([]string{"code"}, map[string]string{"code": httpapi.LineSchema(6, 10)}),
		}, func(ctx context.Context, m commands.Meta, p domain.Principal, in CodeInput) (identitycmd.MFAConfirmation, error) {
			return cmds.ConfirmMFA(ctx, m, p, in.Code)
		})),
		httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.mfa.disable", Method: http.MethodDelete, Path: "/api/me/mfa", AuthorizationMode: httpapi.AuthRuntime,
			Destructive:  true,
			Summary:      "Turn the signed-in user's MFA off: needs a current TOTP code or an unused backup code (422 on /code otherwise)",
			InputSchema:  httpapi.Object([]string{"code"}, map[string]string{"code": mfaCodeSchema}),
			OutputSchema: []byte(mfaStatusOut),
		}, func(ctx context.Context, m commands.Meta, p domain.Principal, in CodeInput) (identitycmd.MFAStatus, error) {
			return cmds.DisableMFA(ctx, m, p, in.Code)
		}),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.sessions.login_mfa", Method: http.MethodPost, Path: "/login/mfa", AuthorizationMode: httpapi.AuthPublic,
			Summary: "Second sign-in step: POST /login answered 401 mfa_required with mfa_token (single use, 5 minutes); send it with a " +
				"current TOTP code or an unused backup code. Starts the session exactly as /login does (cookie, tokens). A wrong or " +
				"reused code is 401 mfa_code_invalid; five in a row lock code checks for 15 minutes (429 mfa_locked). Passkey " +
				"assertions never satisfy this step",
			InputSchema: httpapi.Object([]string{"mfaToken", "code"}, map[string]string{
				"mfaToken": httpapi.LineSchema(10, 200), "code": mfaCodeSchema,
				"returnRefreshToken": `{"type":"boolean","description":"also return the refresh token in the body (non-browser clients)"}`}),
			OutputSchema: []byte(sessionOut),
		}, func(ctx context.Context, c *httpapi.Call, in LoginMFAInput) (httpapi.Reply, error) {
			tokens, err := cmds.LoginMFA(ctx, c.Meta, in.LoginMFA)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return web.sessionReply(c.Request, tokens, in.ReturnRefreshToken), nil
		}),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.sessions.list", Method: http.MethodGet, Path: "/api/me/sessions", ReadOnly: true,
			AuthorizationMode: httpapi.AuthRuntime, ReadModel: identityview.Name,
			Summary:      "The signed-in user's open sessions in every organization; the calling one has current: true. No token material",
			OutputSchema: []byte(sessionListOut),
		}, func(ctx context.Context, p domain.Principal, _ httpapi.NoInput) (identitycmd.SessionList, error) {
			return cmds.ListMySessions(ctx, p)
		}),
		httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.sessions.end", Method: http.MethodDelete, Path: "/api/me/sessions/{sessionId}",
			AuthorizationMode: httpapi.AuthRuntime, Destructive: true,
			Summary:      "End one of the signed-in user's sessions (another device or this one); its tokens fail /validate at once",
			InputSchema:  httpapi.Object([]string{"sessionId"}, map[string]string{"sessionId": uuidString}),
			OutputSchema: []byte(sessionsEndedOut),
		}, func(ctx context.Context, m commands.Meta, p domain.Principal, in SessionRef) (identitycmd.SessionsEnded, error) {
			return cmds.EndMySession(ctx, m, p, in.SessionID)
		}),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.organizations.members.sessions.list", Method: http.MethodGet,
			Path: "/api/organizations/{orgId}/members/{userId}/sessions", ReadOnly: true, AuthorizationMode: httpapi.AuthRuntime,
			ReadModel: identityview.Name,
			Summary: "A member's open sessions in the organization (app_platform_auth.sessions:manage; an organization admin route: " +
				"owner, super_admin, admin pass). Another organization is 404",
			InputSchema:  httpapi.Object([]string{"orgId", "userId"}, member),
			OutputSchema: []byte(sessionListOut),
		}, func(ctx context.Context, p domain.Principal, in MemberRef) (identitycmd.SessionList, error) {
			return access.ListMemberSessions(ctx, p, in.OrganizationID, in.UserID)
		}),
		httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.organizations.members.sessions.end_all", Method: http.MethodDelete,
			Path: "/api/organizations/{orgId}/members/{userId}/sessions", AuthorizationMode: httpapi.AuthRuntime, Destructive: true,
			Summary: "End every open session of a member in the organization (sessions:manage; organization admin route; " +
				"not a member ranked above the caller)",
			InputSchema:  httpapi.Object([]string{"orgId", "userId"}, member),
			OutputSchema: []byte(sessionsEndedOut),
		}, func(ctx context.Context, m commands.Meta, p domain.Principal, in MemberRef) (identitycmd.SessionsEnded, error) {
			return access.EndMemberSessions(ctx, m, p, in.OrganizationID, in.UserID, "")
		}),
		httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.organizations.members.sessions.end", Method: http.MethodDelete,
			Path: "/api/organizations/{orgId}/members/{userId}/sessions/{sessionId}", AuthorizationMode: httpapi.AuthRuntime, Destructive: true,
			Summary:      "End one session of a member in the organization (sessions:manage; organization admin route)",
			InputSchema:  httpapi.Object([]string{"orgId", "userId", "sessionId"}, memberSession),
			OutputSchema: []byte(sessionsEndedOut),
		}, func(ctx context.Context, m commands.Meta, p domain.Principal, in MemberSessionRef) (identitycmd.SessionsEnded, error) {
			return access.EndMemberSessions(ctx, m, p, in.OrganizationID, in.UserID, in.SessionID)
		}),
		httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.organizations.members.mfa.reset", Method: http.MethodDelete,
			Path: "/api/organizations/{orgId}/members/{userId}/mfa", AuthorizationMode: httpapi.AuthRuntime, Destructive: true,
			Summary: "Reset a member's MFA (lost device): secret and backup codes are dropped, the member signs in with the password " +
				"until enrolling again (app_platform_auth.security:manage; organization admin route; the user's home organization only)",
			InputSchema:  httpapi.Object([]string{"orgId", "userId"}, member),
			OutputSchema: []byte(mfaStatusOut),
		}, func(ctx context.Context, m commands.Meta, p domain.Principal, in MemberRef) (identitycmd.MFAStatus, error) {
			return access.ResetMemberMFA(ctx, m, p, in.OrganizationID, in.UserID)
		}),
	}}
}
