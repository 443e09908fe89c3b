// Package identity is the identity context's domain, as much as the backbone
// needs: organizations, users and API keys. Issue #3 completes it.
package identity

import "time"

const (
	StreamOrganization = "identity.organization"
	StreamUser         = "identity.user"
	StreamAPIKey       = "identity.api_key"
)

const (
	OrganizationCreated = "identity.organization.created"
	UserCreated         = "identity.user.created"
	APIKeyCreated       = "identity.api_key.created"
	APIKeyRevoked       = "identity.api_key.revoked"
)

// Organization roles, highest first. A missing role means member.
var Roles = []string{"owner", "super_admin", "admin", "member", "guest"}

type OrganizationCreatedV1 struct {
	OrganizationID string    `json:"organization_id"`
	Name           string    `json:"name"`
	Slug           string    `json:"slug"`
	CreatedAt      time.Time `json:"created_at"`
}

type UserCreatedV1 struct {
	UserID         string    `json:"user_id"`
	OrganizationID string    `json:"organization_id"`
	Email          string    `json:"email"`
	Role           string    `json:"role"`
	CreatedAt      time.Time `json:"created_at"`
}

// APIKeyCreatedV1 holds the secret's hash only; the secret is shown once.
type APIKeyCreatedV1 struct {
	KeyID          string    `json:"key_id"`
	OrganizationID string    `json:"organization_id"`
	CreatedBy      string    `json:"created_by"`
	Name           string    `json:"name"`
	Service        string    `json:"service"`
	Scopes         []string  `json:"scopes"`
	SecretHash     string    `json:"secret_hash"`
	CreatedAt      time.Time `json:"created_at"`
}

type APIKeyRevokedV1 struct {
	KeyID     string    `json:"key_id"`
	RevokedAt time.Time `json:"revoked_at"`
}
