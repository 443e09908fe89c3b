package identity

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// UserLifecycle is the answer of delete, restore and permanent delete.
type UserLifecycle struct {
	UserID    string     `json:"user_id"`
	State     string     `json:"state"`
	DeletedAt *time.Time `json:"deleted_at,omitempty"`
}

// userCommand runs one decision on a user's stream. The stream's tenant is
// the user's home organization, read from the write side first.
func (h *Handlers) userCommand(ctx context.Context, m commands.Meta, id string,
	act func(*domain.User, time.Time) ([]event.Change, error)) (commands.Result[UserLifecycle], error) {
	u, err := h.loadUser(ctx, id)
	if err != nil {
		return commands.Result[UserLifecycle]{}, err
	}
	if !u.Exists() {
		return commands.Result[UserLifecycle]{}, errNotFoundUser
	}
	m.OrganizationID = u.State().OrganizationID
	return commands.Run(ctx, h.store, m, domain.StreamUser, id,
		func(history []event.Recorded) ([]event.Change, UserLifecycle, error) {
			u, err := domain.LoadUser(history)
			if err != nil {
				return nil, UserLifecycle{}, err
			}
			changes, err := act(u, h.now())
			if err != nil {
				return nil, UserLifecycle{}, err
			}
			all, err := event.Append(history, changes)
			if err != nil {
				return nil, UserLifecycle{}, err
			}
			if u, err = domain.LoadUser(all); err != nil {
				return nil, UserLifecycle{}, err
			}
			out := UserLifecycle{UserID: id, State: u.Lifecycle()}
			if at := u.DeletedAt(); !at.IsZero() {
				out.DeletedAt = &at
			}
			return changes, out, nil
		})
}

// DeleteUser soft-deletes: sign-in and every session stop at once
// (/validate reads the user's stream); restore undoes it.
func (h *Handlers) DeleteUser(ctx context.Context, m commands.Meta, p domain.Principal, id string) (commands.Result[UserLifecycle], error) {
	if err := h.AuthorizeUserAdmin(ctx, p, id); err != nil {
		return commands.Result[UserLifecycle]{}, err
	}
	return h.userCommand(ctx, m, id, (*domain.User).SoftDelete)
}

func (h *Handlers) RestoreUser(ctx context.Context, m commands.Meta, p domain.Principal, id string) (commands.Result[UserLifecycle], error) {
	if err := h.AuthorizeUserAdmin(ctx, p, id); err != nil {
		return commands.Result[UserLifecycle]{}, err
	}
	return h.userCommand(ctx, m, id, (*domain.User).Restore)
}

// DeleteUserPermanently erases the user: the event frees the email claim and
// ends every session; the data key is destroyed, so email, name and password
// hash are unreadable in the log and in every replay.
func (h *Handlers) DeleteUserPermanently(ctx context.Context, m commands.Meta, p domain.Principal, id string) (commands.Result[UserLifecycle], error) {
	if err := h.AuthorizeUserAdmin(ctx, p, id); err != nil {
		return commands.Result[UserLifecycle]{}, err
	}
	return h.eraseUser(ctx, m, id)
}

func (h *Handlers) eraseUser(ctx context.Context, m commands.Meta, id string) (commands.Result[UserLifecycle], error) {
	if err := h.requireKeys(); err != nil {
		return commands.Result[UserLifecycle]{}, err
	}
	res, err := h.userCommand(ctx, m, id, (*domain.User).DeletePermanently)
	if err != nil {
		if u, lerr := h.loadUser(ctx, id); lerr == nil && u.Lifecycle() == domain.StateErased {
			_ = h.keys.Destroy(ctx, id) // finish an earlier, interrupted erasure
		}
		return res, err
	}
	return res, h.keys.Destroy(ctx, id)
}
