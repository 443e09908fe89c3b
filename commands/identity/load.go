package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// Loads outside a command read the write side (the event store), never the
// read model: validation and authorization see every change at once.

func (h *Handlers) loadOrganization(ctx context.Context, id string) (*domain.Organization, error) {
	history, err := h.store.Load(ctx, id)
	if err != nil {
		return nil, errs.Unavailable("identity store unavailable", err)
	}
	return domain.LoadOrganization(commands.Recorded(history))
}

func (h *Handlers) loadUser(ctx context.Context, id string) (*domain.User, error) {
	history, err := h.store.Load(ctx, id)
	if err != nil {
		return nil, errs.Unavailable("identity store unavailable", err)
	}
	return domain.LoadUser(commands.Recorded(history))
}

func (h *Handlers) loadSession(ctx context.Context, id string) (*domain.Session, error) {
	history, err := h.store.Load(ctx, id)
	if err != nil {
		return nil, errs.Unavailable("identity store unavailable", err)
	}
	return domain.LoadSession(commands.Recorded(history))
}

// userByEmailHash is the user holding an email: the unique claim on the
// write side, so a user signs in the moment sign-up commits (the read model
// may lag by a batch).
func (h *Handlers) userByEmailHash(ctx context.Context, hash string) (string, error) {
	id, err := h.store.Holder(ctx, domain.UniqueEmail, hash)
	if err != nil {
		return "", errs.Unavailable("identity store unavailable", err)
	}
	return id, nil
}

// requireOrganization: API keys and users are created only in an active
// organization.
func (h *Handlers) requireOrganization(ctx context.Context, id string) error {
	o, err := h.loadOrganization(ctx, id)
	if err != nil {
		return err
	}
	if !o.Visible() {
		return errs.NotFound("organization")
	}
	if !o.Active() {
		return errs.Conflict("organization_deleted", "the organization is deleted; restore it first")
	}
	return nil
}

func (h *Handlers) requireKeys() error {
	if h.keys == nil {
		return errs.Unavailable("identity key store is not configured", nil)
	}
	return nil
}
