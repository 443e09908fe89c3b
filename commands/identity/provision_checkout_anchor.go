package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// A checkout anchor outlives what it names: its owner may erase the account,
// its organization may be deleted. An anchor naming a gone subject would
// answer links that fail on use forever, so provisioning checks it first.

func errAccountDeleted() error {
	return errs.Conflict("account_deleted", "the email's account is deleted; restore it (or erase it) before provisioning again")
}

func errOrganizationDeleted() error {
	return errs.Conflict("organization_deleted", "the email's workspace is deleted; restore it (or delete it permanently) before provisioning again")
}

type anchorVerdict int

const (
	anchorUsable          anchorVerdict = iota // as it is; missing steps are completed
	anchorNewOrganization                      // the owner stays, the workspace is gone: a new one
	anchorNewAccount                           // the owner was erased: a new owner and workspace
)

// checkAnchor decides on the write side. A soft-deleted (recoverable)
// account or workspace is a 409: a new purchase must not silently start a
// second workspace beside one its owner can still restore. Once erased (by
// the user, an admin or the 30-day purge) the anchor is superseded.
func (a *Access) checkAnchor(ctx context.Context, st domain.CheckoutProvisionedV1) (anchorVerdict, error) {
	u, err := a.h.loadUser(ctx, st.UserID)
	if err != nil {
		return 0, err
	}
	switch {
	case u.Lifecycle() == domain.StateErased:
		return anchorNewAccount, nil
	case u.Exists() && !u.Active():
		return 0, errAccountDeleted()
	}
	o, err := a.h.loadOrganization(ctx, st.OrganizationID)
	if err != nil {
		return 0, err
	}
	switch {
	case !o.Exists(): // an interrupted first call: the steps complete it
		return anchorUsable, nil
	case o.Erased():
		return anchorNewOrganization, nil
	case !o.Active():
		return 0, errOrganizationDeleted()
	}
	if _, member := o.Member(st.UserID); !member { // removed by another owner
		return anchorNewOrganization, nil
	}
	return anchorUsable, nil
}

// releaseAnchor ends an anchor whose owner cannot be made because another
// account holds the email. An organization made for it before the owner
// (the order of earlier versions) would stay ownerless: it is erased.
func (a *Access) releaseAnchor(ctx context.Context, m commands.Meta, streamID string, st domain.CheckoutProvisionedV1) error {
	u, err := a.h.loadUser(ctx, st.UserID)
	if err != nil {
		return err
	}
	if u.Exists() { // cannot happen with user_exists handled; never erase a real owner's workspace
		return errs.Conflict("email_taken", "the email belongs to another account")
	}
	o, err := a.h.loadOrganization(ctx, st.OrganizationID)
	if err != nil {
		return err
	}
	if o.Visible() {
		if _, err := a.h.DeleteOrganization(ctx, m, st.OrganizationID); err != nil {
			return err
		}
		if _, err := a.h.DeleteOrganizationPermanently(ctx, m, st.OrganizationID); err != nil {
			return err
		}
	}
	_, err = commands.Run(ctx, a.h.store, platformMeta(m), domain.StreamCheckout, streamID,
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			c, err := domain.LoadCheckout(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			return c.Release(st.OrganizationID, "email_taken", a.now()), struct{}{}, nil
		})
	return err
}

// existingOwner finds an active organization the email's user owns (the
// email's unique claim on the write side, then memberships).
func (a *Access) existingOwner(ctx context.Context, emailHash string) (string, string, bool, error) {
	userID, err := a.h.userByEmailHash(ctx, emailHash)
	if err != nil || userID == "" {
		return "", "", false, err
	}
	u, err := a.h.loadUser(ctx, userID)
	if err != nil {
		return "", "", false, err
	}
	if !u.Active() { // a link to a deleted account would answer 401 on use
		return "", "", false, errAccountDeleted()
	}
	// The home organization counts before the read model lists it: a second
	// checkout right after the first finds the workspace the first made.
	orgs := []string{u.State().OrganizationID}
	if a.h.dir != nil {
		more, err := a.h.dir.OrganizationsOf(ctx, userID)
		if err != nil {
			return "", "", false, err
		}
		for _, id := range more {
			if id != orgs[0] {
				orgs = append(orgs, id)
			}
		}
	}
	found, deleted := "", false
	for _, id := range orgs {
		o, err := a.h.loadOrganization(ctx, id)
		if err != nil {
			return "", "", false, err
		}
		mem, ok := o.Member(userID)
		// A billing-plane caller never receives a sign-in link of a platform
		// account: that would turn any billing bug into a platform takeover.
		if ok && o.Administration() {
			return "", "", false, errs.Conflict("platform_account", "the email belongs to a platform administration account; it cannot be provisioned")
		}
		if ok && mem.Role == domain.RoleOwner && o.Active() && found == "" {
			found = id
		}
		deleted = deleted || ok && mem.Role == domain.RoleOwner && o.Lifecycle() == domain.StateDeleted
	}
	switch {
	case found != "":
		return found, userID, true, nil
	case deleted:
		return "", "", false, errOrganizationDeleted()
	}
	return "", "", false, errs.Conflict("email_taken", "the email belongs to an account that owns no organization; sign in instead")
}
