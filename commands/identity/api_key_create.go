package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// CreateAPIKey is the input of key creation. Service is the target
// application's app id; ResourceBindings narrow the key to resources.
type CreateAPIKey struct {
	Name             string                   `json:"name"`
	Service          string                   `json:"service"`
	Scopes           []string                 `json:"scopes"`
	ResourceBindings []domain.ResourceBinding `json:"resourceBindings"`
}

// APIKeyCreated is the answer. Token is shown once: it is not part of the
// stored (replayable) result, so a replay of the same request omits it.
type APIKeyCreated struct {
	domain.APIKeyCreatedV1
	// SecretHash shadows the event's member so that answers omit it.
	SecretHash       string                   `json:"secret_hash,omitempty"`
	ResourceBindings []domain.ResourceBinding `json:"resource_bindings"`
	State            string                   `json:"state"`
	Token            string                   `json:"token,omitempty"`
}

// keyAnswer renders a key's current state without its secret hash.
func keyAnswer(k *domain.APIKey) APIKeyCreated {
	c := k.Created()
	c.SecretHash = "" // never leaves the event store
	return APIKeyCreated{APIKeyCreatedV1: c, ResourceBindings: k.Bindings(), State: k.StateName()}
}

// TokenPrefix starts every platform API key.
const TokenPrefix = "pk_"

// CreateAPIKey creates a key with what the input says, unchecked against
// any caller: it is the bootstrap path (platformctl bootstrap, test
// harnesses), reachable in-process only. HTTP goes through
// Access.CreateAPIKey, which repeats the api_keys.options calculation.
func (h *Handlers) CreateAPIKey(ctx context.Context, m commands.Meta, in CreateAPIKey) (commands.Result[APIKeyCreated], error) {
	if err := h.requireOrganization(ctx, m.OrganizationID); err != nil {
		return commands.Result[APIKeyCreated]{}, err
	}
	return h.createAPIKey(ctx, m, in)
}

func (h *Handlers) createAPIKey(ctx context.Context, m commands.Meta, in CreateAPIKey) (commands.Result[APIKeyCreated], error) {
	id := uuid.Must(uuid.NewV7()).String()
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return commands.Result[APIKeyCreated]{}, err
	}
	encoded := base64.RawURLEncoding.EncodeToString(secret)
	res, err := commands.Execute(ctx, h.store, m, domain.StreamAPIKey, id, domain.LoadAPIKey,
		func(k *domain.APIKey) ([]event.Change, error) {
			return k.Create(domain.NewAPIKey{KeyID: id, OrganizationID: m.OrganizationID, CreatedBy: m.Actor.ID,
				CreatedByType: m.Actor.Type, Name: in.Name, Service: in.Service, Scopes: in.Scopes, Bindings: in.ResourceBindings, SecretHash: HashSecret(encoded)}, h.now())
		}, keyAnswer)
	if err == nil && !res.Replayed {
		res.Value.Token = TokenPrefix + id + "." + encoded
	}
	return res, err
}

// HashSecret hashes an API key secret. Keys are 256 random bits, so a fast
// hash is enough (passwords get an adaptive hash instead).
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
