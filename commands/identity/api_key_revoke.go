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
	return commands.Run(ctx, h.store, m, domain.StreamAPIKey, in.KeyID,
		func(history []event.Recorded) ([]event.Change, APIKeyCreated, error) {
			k, err := domain.LoadAPIKey(history)
			if err != nil {
				return nil, APIKeyCreated{}, err
			}
			changes, err := k.Revoke(h.now())
			if err != nil {
				return nil, APIKeyCreated{}, err
			}
			out := keyAnswer(k)
			out.State = domain.KeyRevoked
			return changes, out, nil
		})
}
