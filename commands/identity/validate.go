package identity

import (
	"context"
	"crypto/subtle"
	"strings"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// Validate resolves a credential to its principal from the event store's
// current state, on every call: a revoked key fails at once, and nothing is
// trusted from the token itself beyond which key it names.
func (h *Handlers) Validate(ctx context.Context, token string) (domain.Principal, error) {
	keyID, secret, ok := strings.Cut(strings.TrimPrefix(token, TokenPrefix), ".")
	if !strings.HasPrefix(token, TokenPrefix) || !ok || uuid.Validate(keyID) != nil || secret == "" {
		return domain.Principal{}, errs.AuthenticationRequired("invalid credential")
	}
	history, err := h.store.Load(ctx, keyID)
	if err != nil {
		return domain.Principal{}, errs.Unavailable("identity store unavailable", err)
	}
	k, err := domain.LoadAPIKey(commands.Recorded(history))
	if err != nil {
		return domain.Principal{}, err
	}
	want := k.Created().SecretHash
	if !k.Exists() || subtle.ConstantTimeCompare([]byte(want), []byte(HashSecret(secret))) != 1 || !k.Active() {
		return domain.Principal{}, errs.AuthenticationRequired("invalid credential")
	}
	c := k.Created()
	return domain.Principal{ID: c.KeyID, Type: "api_key", OrganizationID: c.OrganizationID, Role: "member",
		Scopes: c.Scopes, Service: c.Service}, nil
}
