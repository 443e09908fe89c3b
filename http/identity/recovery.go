package identity

import (
	"context"
	"net/http"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
)

// RecoveryDeps are what account recovery and onboarding call: the access
// half's commands (they hold the email sender) and the session cookie setup.
type RecoveryDeps struct {
	Access *identitycmd.Access
	Web    SessionWeb
}

const (
	newPasswordSchema = `{"type":"string","minLength":10,"maxLength":256}`
)

// invitationOut is an invitation (identity_outputs.go).
var invitationOut = string(invitationViewOut)

// resetAccepted is the one answer of POST /password-reset, whatever the
// email: no account enumeration.
var resetAccepted = map[string]string{"status": "accepted",
	"detail": "If an active account uses this email, a password reset link is on its way. It is valid for 30 minutes."}

// signupTokenMax bounds a sign-up token: it carries the sealed sign-up
// (address, names of up to 200 characters, slug, password hash, ids).
const signupTokenMax = 8192

// signupAccepted is the one answer of POST /register, whatever the email:
// no account enumeration (docs/identity-access.md, onboarding).
var signupAccepted = map[string]string{"status": "accepted",
	"detail": "Check your email: a link to finish signing up is on its way (it works once, for 24 hours). " +
		"If this address already has an account, the email says so instead; sign in or reset the password."}

// RecoveryPart: sign-up and its confirmation, password change,
// password reset (self-service and by an organization admin), and
// invitations (create, list, revoke, accept).
func RecoveryPart(d RecoveryDeps) Part {
	a, web := d.Access, d.Web
	orgInvitation := map[string]string{"orgId": uuidString, "invitationId": uuidString}
	return Part{Actions: []httpapi.Action{
		httpapi.NoStore(httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.users.register", Method: http.MethodPost, Path: "/register", AuthorizationMode: httpapi.AuthPublic,
			CredentialAttempt: true, SuccessStatus: http.StatusAccepted,
			Summary: "Sign up: with developerWorkspace and createOrganization, seeds a developer workspace (an organization) whose " +
				"creator is owner. Always 202 with the same body for a well-formed request: the address receives a link that " +
				"finishes the sign-up (POST /register/confirm signs in), or, when it already has an account, a notice saying so",
			InputSchema: httpapi.Object([]string{"email", "password", "organizationSlug", "createOrganization"}, map[string]string{
				"email": httpapi.EmailSchema(), "password": newPasswordSchema,
				"name": httpapi.LineSchema(0, text.MaxTitle), "organizationName": httpapi.LineSchema(0, text.MaxTitle),
				"organizationSlug": slugSchema, "developerWorkspace": `{"type":"boolean"}`,
				"createOrganization": `{"const":true,"description":"sign-up creates an organization; joining one needs an invitation"}`,
				"returnRefreshToken": `{"type":"boolean","description":"accepted for older clients; send it to /register/confirm"}`}),
		}, d.requestSignup)),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.users.register.confirm", Method: http.MethodPost, Path: "/register/confirm",
			AuthorizationMode: httpapi.AuthPublic, CredentialAttempt: true, SuccessStatus: http.StatusCreated,
			Summary: "Finish a sign-up with the emailed token: makes the account and its organization (the creator is owner) and " +
				"signs in (refresh token in the cookie). A token that does not open or has expired is 409 signup_token_invalid; " +
				"a second use 409 signup_token_used",
			InputSchema: httpapi.Object([]string{"token"}, map[string]string{"token": httpapi.LineSchema(1, signupTokenMax),
				"returnRefreshToken": `{"type":"boolean"}`}),
		}, func(ctx context.Context, c *httpapi.Call, in ConfirmSignupInput) (httpapi.Reply, error) {
			out, err := a.ConfirmSignup(ctx, c.Meta, in.Token)
			if err != nil {
				return httpapi.Reply{}, err
			}
			r := web.sessionReply(c.Request, out.Session, in.ReturnRefreshToken)
			r.Body = map[string]any{"organization": out.Organization, "user": out.User, "session": r.Body}
			return r, nil
		}),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.users.password.change", Method: http.MethodPost, Path: "/api/me/password",
			AuthorizationMode: httpapi.AuthRuntime, CredentialAttempt: true,
			Summary: "Change the signed-in user's password (session token; current password required). Every earlier session " +
				"of the user ends, the calling one included; the answer carries its replacement (refresh token in the cookie)",
			InputSchema: httpapi.Object([]string{"currentPassword", "newPassword"}, map[string]string{
				"currentPassword": `{"type":"string","minLength":1,"maxLength":256}`, "newPassword": newPasswordSchema,
				"returnRefreshToken": `{"type":"boolean"}`}),
		}, func(ctx context.Context, c *httpapi.Call, in ChangePasswordInput) (httpapi.Reply, error) {
			out, err := a.ChangePassword(ctx, c.Meta, c.Principal, in.ChangePassword)
			if err != nil {
				return httpapi.Reply{}, err
			}
			if out.Session == nil {
				return httpapi.Reply{Body: out, Header: web.clearCookie(c.Request)}, nil
			}
			r := web.sessionReply(c.Request, *out.Session, in.ReturnRefreshToken)
			r.Body = map[string]any{"user_id": out.UserID, "sessions_ended": out.SessionsEnded, "session": r.Body}
			return r, nil
		}),
		httpapi.NoStore(httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.password_reset.request", Method: http.MethodPost, Path: "/password-reset",
			AuthorizationMode: httpapi.AuthPublic, CredentialAttempt: true, SuccessStatus: http.StatusAccepted,
			Summary: "Forgot password: always 202 with the same body. When an active user has this email, a single-use reset " +
				"token (30 minutes) is emailed to it; a new request supersedes the previous token (at most 5 an hour)",
			InputSchema: httpapi.Object([]string{"email"}, map[string]string{"email": httpapi.EmailSchema()}),
		}, d.requestPasswordReset)),
		httpapi.NoStore(httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.password_reset.complete", Method: http.MethodPost, Path: "/password-reset/complete",
			AuthorizationMode: httpapi.AuthPublic, CredentialAttempt: true,
			Summary: "Set a new password with an emailed reset token (once). Every session of the user ends. An unknown, " +
				"superseded, used or expired token is 409 reset_token_invalid",
			InputSchema: httpapi.Object([]string{"token", "newPassword"}, map[string]string{
				"token": httpapi.LineSchema(1, text.MaxToken), "newPassword": newPasswordSchema}),
		}, d.completePasswordReset)),
		httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.organizations.members.password_reset", Method: http.MethodPost,
			Path: "/api/organizations/{orgId}/members/{userId}/password-reset", AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusAccepted,
			Summary: "Email a password reset token to a member of the organization (org admin route: owner, super_admin, admin, or " +
				"app_platform_auth.security:manage; not to a member ranked above the caller). The caller never sees the token",
			InputSchema: httpapi.Object([]string{"orgId", "userId"}, map[string]string{"orgId": uuidString, "userId": uuidString}),
		}, a.TriggerPasswordReset),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.invitations.create", Method: http.MethodPost, Path: "/api/organizations/{orgId}/invitations",
			AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusCreated,
			Summary: "Invite an email to the organization with a role not above the caller's (org admin route: owner, super_admin, " +
				"admin, or app_platform_auth.users:manage). A single-use code (7 days) is emailed to the invitee, never answered",
			InputSchema: httpapi.Object([]string{"orgId", "email"}, map[string]string{"orgId": uuidString,
				"email": httpapi.EmailSchema(), "role": roleEnum}),
			OutputSchema: []byte(invitationOut),
		}, a.CreateInvitation),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.invitations.list", Method: http.MethodGet, Path: "/api/organizations/{orgId}/invitations",
			AuthorizationMode: httpapi.AuthRuntime, ReadOnly: true,
			Summary: "The organization's invitations, pending ones by default (state=all adds accepted, revoked, expired); " +
				"read from the write side, so a new invitation is listed at once",
			InputSchema: httpapi.Object([]string{"orgId"}, map[string]string{"orgId": uuidString,
				"state": `{"type":"string","enum":["pending","all"]}`}),
		}, d.listInvitations),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.invitations.revoke", Method: http.MethodDelete, Path: "/api/organizations/{orgId}/invitations/{invitationId}",
			AuthorizationMode: httpapi.AuthRuntime, Destructive: true,
			Summary:     "Revoke a pending invitation: its code fails from then on (an accepted one is 409 invitation_accepted)",
			InputSchema: httpapi.Object([]string{"orgId", "invitationId"}, orgInvitation), OutputSchema: []byte(invitationOut),
		}, a.RevokeInvitation),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.invitations.accept", Method: http.MethodPost, Path: "/invitations/accept",
			AuthorizationMode: httpapi.AuthPublic, CredentialAttempt: true,
			Summary: "Accept an invitation with its code, once. An invitee with an account sends its session token (bearer) and " +
				"must be the invited email's user; without an account, send name and password: the user is created and signed in",
			InputSchema: httpapi.Object([]string{"code"}, map[string]string{"code": httpapi.LineSchema(1, text.MaxToken),
				"name": httpapi.LineSchema(0, text.MaxTitle), "password": newPasswordSchema, "returnRefreshToken": `{"type":"boolean"}`}),
		}, func(ctx context.Context, c *httpapi.Call, in AcceptInvitationInput) (httpapi.Reply, error) {
			p, err := a.OptionalPrincipal(ctx, httpapi.Credential(c.Request))
			if err != nil {
				return httpapi.Reply{}, err
			}
			out, err := a.AcceptInvitation(ctx, c.Meta, p, in.AcceptInvitation)
			if err != nil {
				return httpapi.Reply{}, err
			}
			if out.Session == nil {
				return httpapi.OK(out), nil
			}
			r := web.sessionReply(c.Request, *out.Session, in.ReturnRefreshToken)
			body := r.Body
			out.Session = nil
			r.Body = map[string]any{"invitation_id": out.InvitationID, "organization_id": out.OrganizationID, "user_id": out.UserID,
				"role": out.Role, "created_user": out.CreatedUser, "session": body}
			return r, nil
		}),
	}}
}

// requestSignup answers the same for every well-formed request: the
// address learns by email whether it had an account.
func (d RecoveryDeps) requestSignup(ctx context.Context, _ commands.Meta, _ domain.Principal, in RegisterInput) (map[string]string, error) {
	if err := d.Access.RequestSignup(ctx, in.Register); err != nil {
		return nil, err
	}
	return signupAccepted, nil
}

// requestPasswordReset answers the same whatever the email; the reset
// itself runs on.
func (d RecoveryDeps) requestPasswordReset(_ context.Context, m commands.Meta, _ domain.Principal, in identitycmd.RequestPasswordReset) (map[string]string, error) {
	d.Access.RequestPasswordReset(m, in)
	return resetAccepted, nil
}

func (d RecoveryDeps) completePasswordReset(ctx context.Context, m commands.Meta, _ domain.Principal, in identitycmd.CompletePasswordReset) (identitycmd.PasswordReset, error) {
	return d.Access.CompletePasswordReset(ctx, m, in)
}

// InvitationList is the answer of invitations.list.
type InvitationList struct {
	Invitations []identitycmd.InvitationView `json:"invitations"`
}

func (d RecoveryDeps) listInvitations(ctx context.Context, p domain.Principal, in identitycmd.ListInvitations) (InvitationList, error) {
	list, err := d.Access.ListInvitations(ctx, p, in)
	return InvitationList{Invitations: list}, err
}
