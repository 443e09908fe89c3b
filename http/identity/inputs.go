package identity

import identitycmd "github.com/platform/backend/commands/identity"

// Inputs of identity actions that have no command input of their own: the
// path members and query parameters an action's schema admits, exactly
// (TestEveryInputSchemaMatchesItsGoInput holds the bound ones to it).

// OrganizationRef is {orgId}.
type OrganizationRef struct {
	OrganizationID string `json:"orgId"`
}

// ConfirmedOrganization is {orgId} of an irreversible action, with its
// confirmation (the schema admits only true).
type ConfirmedOrganization struct {
	OrganizationRef
	Confirm bool `json:"confirm"`
}

// UserRef is {userId}.
type UserRef struct {
	UserID string `json:"userId"`
}

// ConfirmedUser is {userId} of an irreversible action, with its confirmation.
type ConfirmedUser struct {
	UserRef
	Confirm bool `json:"confirm"`
}

// MemberRef is a member of an organization: {orgId, userId}.
type MemberRef struct {
	OrganizationID string `json:"orgId"`
	UserID         string `json:"userId"`
}

// MemberSessionRef is one session of a member: {orgId, userId, sessionId}.
type MemberSessionRef struct {
	MemberRef
	SessionID string `json:"sessionId"`
}

// SessionRef is one of the caller's sessions: {sessionId}.
type SessionRef struct {
	SessionID string `json:"sessionId"`
}

// CodeInput is a second-factor code.
type CodeInput struct {
	Code string `json:"code"`
}

// SlugQuery is the input of slug availability.
type SlugQuery struct {
	Slug string `json:"slug"`
}

// KeyOptionsQuery names the application whose key options are asked for.
type KeyOptionsQuery struct {
	AppID string `json:"appId"`
}

// APIKeyListQuery filters the organization's keys (state active, revoked or all).
type APIKeyListQuery struct {
	State string `json:"state"`
	Limit int    `json:"limit"`
}

// PermissionsQuery names a member, in the caller's organization unless
// organizationId says otherwise (platform roles).
type PermissionsQuery struct {
	UserID         string `json:"userId"`
	OrganizationID string `json:"organizationId"`
}

// ServiceAccessInput names an application of an organization.
type ServiceAccessInput struct {
	OrganizationID string `json:"orgId"`
	AppID          string `json:"appId"`
}

// WorkspaceStatusInput sets a developer workspace's status.
type WorkspaceStatusInput struct {
	OrganizationID string `json:"orgId"`
	Status         string `json:"status"`
	Reason         string `json:"reason"`
}

// CatalogQuery filters the service catalog.
type CatalogQuery struct {
	SurfaceKind  string `json:"surfaceKind"`
	SurfaceGroup string `json:"surfaceGroup"`
	Launchable   *bool  `json:"launchable"`
}

// ServiceTokenInput asks for a service-to-service token.
type ServiceTokenInput struct {
	Service    string `json:"service"`
	TTLSeconds int    `json:"ttlSeconds"`
}

// Inputs of the routes that answer a session (cookie): the command's input
// and whether the body carries the refresh token too (non-browser clients).

// LoginInput is the input of POST /login.
type LoginInput struct {
	identitycmd.Login
	ReturnRefreshToken bool `json:"returnRefreshToken"`
}

// LoginMFAInput is the input of POST /login/mfa.
type LoginMFAInput struct {
	identitycmd.LoginMFA
	ReturnRefreshToken bool `json:"returnRefreshToken"`
}

// RefreshInput is the input of POST /refresh: the token in the body, or
// the refresh cookie.
type RefreshInput struct {
	RefreshToken       string `json:"refreshToken"`
	ReturnRefreshToken bool   `json:"returnRefreshToken"`
}

// RegisterInput is the input of POST /register; returnRefreshToken is
// accepted from older clients and has no effect (sign-in comes with the
// confirmation).
type RegisterInput struct {
	identitycmd.Register
	ReturnRefreshToken bool `json:"returnRefreshToken"`
}

// ConfirmSignupInput is the input of POST /register/confirm.
type ConfirmSignupInput struct {
	Token              string `json:"token"`
	ReturnRefreshToken bool   `json:"returnRefreshToken"`
}

// ChangePasswordInput is the input of POST /api/me/password.
type ChangePasswordInput struct {
	identitycmd.ChangePassword
	ReturnRefreshToken bool `json:"returnRefreshToken"`
}

// AcceptInvitationInput is the input of POST /invitations/accept.
type AcceptInvitationInput struct {
	identitycmd.AcceptInvitation
	ReturnRefreshToken bool `json:"returnRefreshToken"`
}
