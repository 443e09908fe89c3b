package identity

import (
	"context"
	"slices"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// userMemberships loads, from the write side, every organization the user
// is a member of. Candidates come from the accounts read model; the home
// organization (from the user's own stream) always counts, as the read
// model may lag. The home organization comes last: erasure removes it last.
func (h *Handlers) userMemberships(ctx context.Context, u *domain.User) ([]*domain.Organization, error) {
	userID, home := u.State().UserID, u.State().OrganizationID
	var ids []string
	if h.dir != nil {
		var err error
		if ids, err = h.dir.OrganizationsOf(ctx, userID); err != nil {
			return nil, err
		}
	}
	ids = append(slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == home }), home)
	var out []*domain.Organization
	for _, id := range ids {
		o, err := h.loadOrganization(ctx, id)
		if err != nil {
			return nil, err
		}
		if _, member := o.Member(userID); member && o.State().OrganizationID == id {
			out = append(out, o)
		}
	}
	return out, nil
}

// checkNotLastOwner refuses deleting or erasing the last owner of an active
// organization (409 last_owner): ownership is transferred, or the
// organization deleted, first.
func (h *Handlers) checkNotLastOwner(ctx context.Context, u *domain.User) ([]*domain.Organization, error) {
	orgs, err := h.userMemberships(ctx, u)
	if err != nil {
		return nil, err
	}
	return orgs, domain.CheckNotLastOwner(orgs, u.State().UserID)
}

// removeForErasure appends member_removed for an erased (or being erased)
// user on one organization's stream, as its own command with a deterministic
// idempotency key: a repeated erasure, after a crash, applies it once.
func (h *Handlers) removeForErasure(ctx context.Context, m commands.Meta, organizationID, userID string, keepLastOwner bool) (eventstore.Position, error) {
	key := "erasure:member_removed:" + userID
	m.OrganizationID, m.IdempotencyKey, m.RequestHash = organizationID, key, eventstore.HashRequest([]byte(key))
	res, err := commands.Run(ctx, h.store, m, domain.StreamOrganization, organizationID,
		func(history []event.Recorded) ([]event.Change, MemberState, error) {
			o, err := domain.LoadOrganization(history)
			if err != nil {
				return nil, MemberState{}, err
			}
			changes, err := o.RemoveForErasure(userID, keepLastOwner, h.now())
			return changes, MemberState{OrganizationID: organizationID, Member: domain.Member{UserID: userID}}, err
		})
	return res.Position, err
}
