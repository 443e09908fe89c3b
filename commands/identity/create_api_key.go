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

type CreateAPIKey struct {
	Name    string   `json:"name"`
	Service string   `json:"service"`
	Scopes  []string `json:"scopes"`
}

// APIKeyCreated is the answer. Token is shown once: it is not part of the
// stored (replayable) result, so a replay of the same request omits it.
type APIKeyCreated struct {
	domain.APIKeyCreatedV1
	State string `json:"state"`
	Token string `json:"token,omitempty"`
}

// TokenPrefix starts every platform API key.
const TokenPrefix = "pk_"

func (h *Handlers) CreateAPIKey(ctx context.Context, m commands.Meta, in CreateAPIKey) (commands.Result[APIKeyCreated], error) {
	if err := h.requireOrganization(ctx, m.OrganizationID); err != nil {
		return commands.Result[APIKeyCreated]{}, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return commands.Result[APIKeyCreated]{}, err
	}
	encoded := base64.RawURLEncoding.EncodeToString(secret)
	res, err := commands.Run(ctx, h.store, m, domain.StreamAPIKey, id,
		func(history []event.Recorded) ([]event.Change, APIKeyCreated, error) {
			k, err := domain.LoadAPIKey(history)
			if err != nil {
				return nil, APIKeyCreated{}, err
			}
			changes, err := k.Create(domain.NewAPIKey{KeyID: id, OrganizationID: m.OrganizationID, CreatedBy: m.Actor.ID,
				Name: in.Name, Service: in.Service, Scopes: in.Scopes, SecretHash: HashSecret(encoded)}, h.now())
			if err != nil {
				return nil, APIKeyCreated{}, err
			}
			created := changes[0].Payload.(domain.APIKeyCreatedV1)
			created.SecretHash = "" // never leaves the event store
			return changes, APIKeyCreated{APIKeyCreatedV1: created, State: domain.KeyActive}, nil
		})
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
