// Package identity is the identity context's domain: organizations and their
// memberships, users, sessions, API keys, and the pure helpers they need
// (password hashing, sealing personal data under a per-subject key).
// No I/O: time, randomness and keys are passed in.
package identity

import "time"

// Stream types of the identity context (topic <prefix>.identity.events.v1).
const (
	StreamOrganization = "identity.organization"
	StreamUser         = "identity.user"
	StreamSession      = "identity.session"
	StreamAPIKey       = "identity.api_key"
)

const (
	APIKeyCreated = "identity.api_key.created"
	APIKeyRevoked = "identity.api_key.revoked"
)

// APIKeyCreatedV1 holds the secret's hash only; the secret is shown once.
type APIKeyCreatedV1 struct {
	KeyID          string `json:"key_id"`
	OrganizationID string `json:"organization_id"`
	CreatedBy      string `json:"created_by"`
	// CreatedByType is the creator's principal type (CreatorUser,
	// CreatorAPIKey, CreatorSystem): keys hold their scopes only while their
	// creator holds them. Empty in keys made before it was recorded
	// (validation infers it from the id).
	CreatedByType string    `json:"created_by_type,omitempty"`
	Name          string    `json:"name"`
	Service       string    `json:"service"`
	Scopes        []string  `json:"scopes"`
	SecretHash    string    `json:"secret_hash"`
	CreatedAt     time.Time `json:"created_at"`
}

type APIKeyRevokedV1 struct {
	KeyID     string    `json:"key_id"`
	RevokedAt time.Time `json:"revoked_at"`
}
