package identity

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// OrganizationLifecycle is the answer of delete, restore and permanent delete.
type OrganizationLifecycle struct {
	OrganizationID string     `json:"organization_id"`
	State          string     `json:"state"`
	DeletedAt      *time.Time `json:"deleted_at,omitempty"`
}

func orgLifecycle(o *domain.Organization) OrganizationLifecycle {
	out := OrganizationLifecycle{OrganizationID: o.State().OrganizationID, State: o.Lifecycle()}
	if at := o.DeletedAt(); !at.IsZero() {
		out.DeletedAt = &at
	}
	return out
}

// organizationCommand runs one lifecycle decision on an organization's
// stream (its own tenant: a foreign id is a missing one).
func (h *Handlers) organizationCommand(ctx context.Context, m commands.Meta, id string,
	act func(*domain.Organization, time.Time) ([]event.Change, error)) (commands.Result[OrganizationLifecycle], error) {
	m.OrganizationID = id
	return commands.Execute(ctx, h.store, m, domain.StreamOrganization, id, domain.LoadOrganization,
		func(o *domain.Organization) ([]event.Change, error) { return act(o, h.now()) }, orgLifecycle)
}

// DeleteOrganization soft-deletes: a recoverable tombstone.
func (h *Handlers) DeleteOrganization(ctx context.Context, m commands.Meta, id string) (commands.Result[OrganizationLifecycle], error) {
	return h.organizationCommand(ctx, m, id, (*domain.Organization).SoftDelete)
}

// RestoreOrganization undoes a soft delete.
func (h *Handlers) RestoreOrganization(ctx context.Context, m commands.Meta, id string) (commands.Result[OrganizationLifecycle], error) {
	return h.organizationCommand(ctx, m, id, (*domain.Organization).Restore)
}

// DeleteOrganizationPermanently erases a soft-deleted organization: the
// event frees its slug, then its data key is destroyed, so its sealed name
// is unreadable in every replay. If the key destruction fails after the
// event, a repeat of the command (or the privacy maintenance) finishes it.
func (h *Handlers) DeleteOrganizationPermanently(ctx context.Context, m commands.Meta, id string) (commands.Result[OrganizationLifecycle], error) {
	if err := h.requireKeys(); err != nil {
		return commands.Result[OrganizationLifecycle]{}, err
	}
	res, err := h.organizationCommand(ctx, m, id, (*domain.Organization).DeletePermanently)
	if err != nil {
		if o, lerr := h.loadOrganization(ctx, id); lerr == nil && o.Erased() && o.State().OrganizationID == id {
			_ = h.keys.Destroy(ctx, id) // finish an earlier, interrupted erasure
		}
		return res, err
	}
	return res, h.keys.Destroy(ctx, id)
}
