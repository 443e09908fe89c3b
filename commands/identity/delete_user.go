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
	return commands.Execute(ctx, h.store, m, domain.StreamUser, id, domain.LoadUser,
		func(u *domain.User) ([]event.Change, error) { return act(u, h.now()) },
		func(u *domain.User) UserLifecycle {
			out := UserLifecycle{UserID: id, State: u.Lifecycle()}
			if at := u.DeletedAt(); !at.IsZero() {
				out.DeletedAt = &at
			}
			return out
		})
}

// DeleteUser soft-deletes: sign-in and every session stop at once
// (/validate reads the user's stream); restore undoes it. The last owner of
// an active organization is refused: nobody could administer it meanwhile.
func (h *Handlers) DeleteUser(ctx context.Context, m commands.Meta, p domain.Principal, id string) (commands.Result[UserLifecycle], error) {
	var zero commands.Result[UserLifecycle]
	u, err := h.visibleUser(ctx, p, id)
	if err != nil {
		return zero, err
	}
	if _, err := h.checkNotLastOwner(ctx, u); err != nil {
		return zero, err
	}
	return h.userCommand(ctx, m, id, (*domain.User).SoftDelete)
}

func (h *Handlers) RestoreUser(ctx context.Context, m commands.Meta, p domain.Principal, id string) (commands.Result[UserLifecycle], error) {
	if _, err := h.visibleUser(ctx, p, id); err != nil {
		return commands.Result[UserLifecycle]{}, err
	}
	return h.userCommand(ctx, m, id, (*domain.User).Restore)
}

// visibleUser loads the user and authorizes the principal on its account.
func (h *Handlers) visibleUser(ctx context.Context, p domain.Principal, id string) (*domain.User, error) {
	u, err := h.loadUser(ctx, id)
	if err != nil {
		return nil, err
	}
	if !u.Visible() {
		return nil, errNotFoundUser
	}
	return u, h.authorizeUserAdmin(ctx, p, u)
}

// DeleteUserPermanently erases the user: the event frees the email claim and
// ends every session; the data key is destroyed, so email, name and password
// hash are unreadable in the log and in every replay; the user's memberships
// end. An erasure interrupted before its last step (the home organization's
// member_removed) still lists the user there: repeating the request finishes
// it, for the principals who could start it.
func (h *Handlers) DeleteUserPermanently(ctx context.Context, m commands.Meta, p domain.Principal, id string) (commands.Result[UserLifecycle], error) {
	var zero commands.Result[UserLifecycle]
	u, err := h.loadUser(ctx, id)
	if err != nil {
		return zero, err
	}
	if !u.Visible() && !h.erasureUnfinished(ctx, u) {
		return zero, errNotFoundUser
	}
	if err := h.authorizeUserAdmin(ctx, p, u); err != nil {
		return zero, err
	}
	return h.eraseUser(ctx, m, u)
}

// erasureUnfinished: the user is erased but still a member of its home
// organization.
func (h *Handlers) erasureUnfinished(ctx context.Context, u *domain.User) bool {
	if u.Lifecycle() != domain.StateErased {
		return false
	}
	o, err := h.loadOrganization(ctx, u.State().OrganizationID)
	if err != nil {
		return false
	}
	_, member := o.Member(u.State().UserID)
	return member
}

// eraseUser runs the erasure's steps, each idempotent: the memberships of
// other organizations end first (refused for a last owner under each
// organization's lock, before anything irreversible), then the user's
// erasure event and the key destruction, then the home organization's
// membership, unconditionally: the user no longer exists.
func (h *Handlers) eraseUser(ctx context.Context, m commands.Meta, u *domain.User) (commands.Result[UserLifecycle], error) {
	var zero commands.Result[UserLifecycle]
	if err := h.requireKeys(); err != nil {
		return zero, err
	}
	id, home := u.State().UserID, u.State().OrganizationID
	orgs, err := h.checkNotLastOwner(ctx, u)
	if err != nil {
		return zero, err
	}
	homeMember := false
	for _, o := range orgs {
		if oid := o.State().OrganizationID; oid == home {
			homeMember = true
		} else if _, err := h.removeForErasure(ctx, m, oid, id, true); err != nil {
			return zero, err
		}
	}
	res, err := h.userCommand(ctx, m, id, (*domain.User).DeletePermanently)
	if err != nil {
		if u, lerr := h.loadUser(ctx, id); lerr != nil || u.Lifecycle() != domain.StateErased {
			return res, err
		}
		// Finish an earlier, interrupted erasure and answer as it would have.
		res = commands.Result[UserLifecycle]{Value: UserLifecycle{UserID: id, State: domain.StateErased}}
	}
	if err := h.keys.Destroy(ctx, id); err != nil {
		return res, err
	}
	if homeMember {
		pos, err := h.removeForErasure(ctx, m, home, id, false)
		if err != nil {
			return res, err
		}
		if res.Position.StreamID == "" {
			res.Position = pos // a finished erasure's last write
		}
	}
	return res, nil
}
