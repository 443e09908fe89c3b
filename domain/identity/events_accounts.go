package identity

import "time"

// Organization events. Membership lives on the organization's stream, so the
// invariants that span members (there is always an owner) hold under
// concurrency, and /validate reads a member's current role in one load.
const (
	OrganizationCreated            = "identity.organization.created"
	OrganizationDeleted            = "identity.organization.deleted" // soft: recoverable tombstone
	OrganizationRestored           = "identity.organization.restored"
	OrganizationPermanentlyDeleted = "identity.organization.permanently_deleted"
	MemberAdded                    = "identity.organization.member_added"
	MemberRoleChanged              = "identity.organization.member_role_changed"
	MemberRemoved                  = "identity.organization.member_removed"
)

// User events. Personal data (email, name, password hash) is sealed under the
// user's own data key; destroying the key erases it from every replay.
const (
	UserCreated            = "identity.user.created"
	UserDeleted            = "identity.user.deleted"
	UserRestored           = "identity.user.restored"
	UserPermanentlyDeleted = "identity.user.permanently_deleted"
	UserPasswordChanged    = "identity.user.password_changed"
	UserSessionsRevoked    = "identity.user.sessions_revoked" // logout everywhere
)

// Session events. Token secrets are stored as SHA-256 hashes only.
const (
	SessionStarted   = "identity.session.started"
	SessionRefreshed = "identity.session.refreshed"
	SessionEnded     = "identity.session.ended"
)

// Unique claim kinds (event store, code "<kind>_taken").
const (
	UniqueSlug           = "slug"
	UniqueEmail          = "email" // value: HMAC of the normalized email, never the email
	UniqueAdministration = "administration_organization"
	// AdministrationClaim is the one value of the administration claim.
	AdministrationClaim = "platform"
)

// OrganizationCreatedV1: Name is sealed ("enc:v1:...") under the
// organization's data key since issue #3; older events hold it in clear.
type OrganizationCreatedV1 struct {
	OrganizationID     string    `json:"organization_id"`
	Name               string    `json:"name"`
	Slug               string    `json:"slug"`
	Administration     bool      `json:"administration,omitempty"`
	DeveloperWorkspace bool      `json:"developer_workspace,omitempty"`
	CreatedAt          time.Time `json:"created_at"`
}

// OrganizationChangedV1 is the payload of soft delete, restore and permanent delete.
type OrganizationChangedV1 struct {
	OrganizationID string    `json:"organization_id"`
	At             time.Time `json:"at"`
}

// MemberV1 is the payload of member_added and member_role_changed.
// PlatformRole is set only in the administration organization.
type MemberV1 struct {
	OrganizationID string    `json:"organization_id"`
	UserID         string    `json:"user_id"`
	Role           string    `json:"role"`
	PlatformRole   string    `json:"platform_role,omitempty"`
	At             time.Time `json:"at"`
}

type MemberRemovedV1 struct {
	OrganizationID string    `json:"organization_id"`
	UserID         string    `json:"user_id"`
	At             time.Time `json:"at"`
}

// UserCreatedV1: Email, Name and PasswordHash are sealed under the user's
// data key; EmailHash (keyed HMAC) finds the user at login. Role is only
// read from events written before memberships existed.
type UserCreatedV1 struct {
	UserID         string    `json:"user_id"`
	OrganizationID string    `json:"organization_id"` // home organization: owns the user's stream
	Email          string    `json:"email"`
	EmailHash      string    `json:"email_hash,omitempty"`
	Name           string    `json:"name,omitempty"`
	PasswordHash   string    `json:"password_hash,omitempty"`
	Role           string    `json:"role,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
}

type UserChangedV1 struct {
	UserID string    `json:"user_id"`
	At     time.Time `json:"at"`
}

type UserPasswordChangedV1 struct {
	UserID       string    `json:"user_id"`
	PasswordHash string    `json:"password_hash"` // sealed
	At           time.Time `json:"at"`
}

type UserSessionsRevokedV1 struct {
	UserID string    `json:"user_id"`
	Epoch  int       `json:"epoch"`
	At     time.Time `json:"at"`
}

// SessionStartedV1: a session belongs to one user in one active organization.
// Epoch is the user's session epoch at sign-in: logout everywhere raises the
// user's epoch, which ends every session started before.
type SessionStartedV1 struct {
	SessionID       string    `json:"session_id"`
	UserID          string    `json:"user_id"`
	OrganizationID  string    `json:"organization_id"`
	Service         string    `json:"service,omitempty"`
	Epoch           int       `json:"epoch"`
	AccessHash      string    `json:"access_hash"`
	RefreshHash     string    `json:"refresh_hash"`
	AccessExpiresAt time.Time `json:"access_expires_at"`
	ExpiresAt       time.Time `json:"expires_at"`
	StartedAt       time.Time `json:"started_at"`
}

type SessionRefreshedV1 struct {
	SessionID       string    `json:"session_id"`
	AccessHash      string    `json:"access_hash"`
	RefreshHash     string    `json:"refresh_hash"`
	AccessExpiresAt time.Time `json:"access_expires_at"`
	At              time.Time `json:"at"`
}

// Session end reasons.
const (
	EndLogout        = "logout"
	EndEverywhere    = "logout_everywhere"
	EndRefreshReused = "refresh_token_reused"
)

type SessionEndedV1 struct {
	SessionID string    `json:"session_id"`
	Reason    string    `json:"reason"`
	At        time.Time `json:"at"`
}
