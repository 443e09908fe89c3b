package identity

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Key states.
const (
	KeyActive  = "active"
	KeyRevoked = "revoked"
)

type APIKey struct {
	created  APIKeyCreatedV1 // Scopes and Name are the current ones after updates
	bindings []ResourceBinding
	state    string
}

func LoadAPIKey(history []event.Recorded) (*APIKey, error) {
	k := &APIKey{}
	for _, r := range history {
		switch r.Type {
		case APIKeyCreated:
			if err := json.Unmarshal(r.Payload, &k.created); err != nil {
				return nil, err
			}
			k.state = KeyActive
		case APIKeyRevoked:
			k.state = KeyRevoked
		case APIKeyResourcesBound, APIKeyUpdated:
			if err := k.applyUpdate(r); err != nil {
				return nil, err
			}
		}
	}
	return k, nil
}

func (k *APIKey) Exists() bool             { return k.state != "" }
func (k *APIKey) Active() bool             { return k.state == KeyActive }
func (k *APIKey) Created() APIKeyCreatedV1 { return k.created }
func (k *APIKey) StateName() string        { return k.state }

// NewAPIKey is the input of key creation; the secret's hash comes from the caller.
type NewAPIKey struct {
	KeyID, OrganizationID, CreatedBy, CreatedByType, Name, Service, SecretHash string
	Scopes                                                                     []string
	Bindings                                                                   []ResourceBinding
}

func (k *APIKey) Create(n NewAPIKey, now time.Time) ([]event.Change, error) {
	var fields []errs.Field
	if strings.TrimSpace(n.Name) == "" {
		fields = append(fields, errs.Field{Pointer: "/name", Detail: "must not be empty"})
	}
	if len(n.Scopes) == 0 {
		fields = append(fields, errs.Field{Pointer: "/scopes", Detail: "at least one scope is required"})
	}
	for _, s := range n.Scopes {
		if !strings.Contains(s, ":") {
			fields = append(fields, errs.Field{Pointer: "/scopes", Detail: "scope " + s + " must look like resource:action"})
		}
	}
	fields = append(fields, validateBindings(n.Bindings)...)
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if k.Exists() {
		return nil, errs.Conflict("api_key_exists", "the key already exists")
	}
	changes := []event.Change{event.New(APIKeyCreated, APIKeyCreatedV1{KeyID: n.KeyID, OrganizationID: n.OrganizationID,
		CreatedBy: n.CreatedBy, CreatedByType: n.CreatedByType, Name: n.Name, Service: n.Service, Scopes: n.Scopes, SecretHash: n.SecretHash, CreatedAt: now})}
	if len(n.Bindings) > 0 {
		changes = append(changes, event.New(APIKeyResourcesBound, APIKeyUpdatedV1{KeyID: n.KeyID, Name: n.Name, Scopes: n.Scopes,
			ResourceBindings: n.Bindings, At: now}))
	}
	return changes, nil
}

func (k *APIKey) Revoke(now time.Time) ([]event.Change, error) {
	if !k.Exists() {
		return nil, errs.NotFound("api key")
	}
	if !k.Active() {
		return nil, nil // revoking twice changes nothing
	}
	return []event.Change{event.New(APIKeyRevoked, APIKeyRevokedV1{KeyID: k.created.KeyID, RevokedAt: now})}, nil
}

// Principal is who a validated credential speaks for. Services authorize
// from it, and it is rebuilt from stored state on every validation.
type Principal struct {
	ID             string   `json:"principal_id"`
	Type           string   `json:"principal_type"`  // api_key, user, service
	OrganizationID string   `json:"organization_id"` // the active organization
	Role           string   `json:"role"`            // organization role (users); "member" for keys
	Scopes         []string `json:"scopes"`          // API keys: the key's explicit scopes
	// Permissions are what the principal may do now, evaluated at
	// validation: full strings or patterns (`*.*:*` is the platform bypass).
	Permissions []string `json:"permissions"`
	Service     string   `json:"service,omitempty"`
	// Session principals (Type "user") only:
	UserID    string `json:"user_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// PlatformRole is platform_super_admin or platform_admin, set only when
	// the active organization is the platform administration organization.
	PlatformRole string `json:"platform_role,omitempty"`
}

// PlatformWide reports the platform-wide bypass (seed 001, authentication
// rule 7): a platform role held in the administration organization.
func (p Principal) PlatformWide() bool { return p.PlatformRole != "" }

// SeesOrganization: a principal sees its own active organization, and a
// platform role sees every organization. Anything else answers 404.
func (p Principal) SeesOrganization(organizationID string) bool {
	return organizationID != "" && (organizationID == p.OrganizationID || p.PlatformWide())
}

// Allows reports whether the principal holds a full permission string
// (`appId.resource:action`). Validation filled Permissions from the one
// evaluation every route shares: role bundle, overrides and service access
// for users, the explicit scopes of the target application for keys.
func (p Principal) Allows(permission string) bool { return Holds(p.Permissions, permission) }
