package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

type RevokeAPIKey struct {
	KeyID string `json:"keyId"`
}

func (h *Handlers) RevokeAPIKey(ctx context.Context, m commands.Meta, in RevokeAPIKey) (commands.Result[APIKeyCreated], error) {
	return commands.Execute(ctx, h.store, m, domain.StreamAPIKey, in.KeyID, domain.LoadAPIKey,
		func(k *domain.APIKey) ([]event.Change, error) { return k.Revoke(h.now()) }, keyAnswer)
}
