package identity

import (
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
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
	return apiKeyFold.Load(&APIKey{}, history)
}

var apiKeyFold = event.Fold[*APIKey]{
	APIKeyCreated:        event.Apply(func(k *APIKey, p APIKeyCreatedV1) { k.created, k.state = p, KeyActive }),
	APIKeyRevoked:        event.Mark(func(k *APIKey) { k.state = KeyRevoked }),
	APIKeyResourcesBound: event.Apply((*APIKey).updated), // apikey_bindings.go
	APIKeyUpdated:        event.Apply((*APIKey).updated),
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

// Principal is who a validated credential speaks for (domain/principal).
type Principal = principal.Principal
