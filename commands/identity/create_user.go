package identity

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

type CreateUser struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}

func (h *Handlers) CreateUser(ctx context.Context, m commands.Meta, in CreateUser) (commands.Result[domain.UserCreatedV1], error) {
	if err := h.requireOrganization(ctx, m.OrganizationID); err != nil {
		return commands.Result[domain.UserCreatedV1]{}, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	return commands.Run(ctx, h.store, m, domain.StreamUser, id,
		func(history []event.Recorded) ([]event.Change, domain.UserCreatedV1, error) {
			u, err := domain.LoadUser(history)
			if err != nil {
				return nil, domain.UserCreatedV1{}, err
			}
			changes, err := u.Create(id, m.OrganizationID, in.Email, in.Role, h.now())
			if err != nil {
				return nil, domain.UserCreatedV1{}, err
			}
			return changes, changes[0].Payload.(domain.UserCreatedV1), nil
		})
}

func (h *Handlers) requireOrganization(ctx context.Context, id string) error {
	history, err := h.store.Load(ctx, id)
	if err != nil {
		return errs.Unavailable("identity store unavailable", err)
	}
	o, err := domain.LoadOrganization(commands.Recorded(history))
	if err != nil {
		return err
	}
	if !o.Exists() {
		return errs.NotFound("organization")
	}
	return nil
}
