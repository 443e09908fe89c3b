package identity

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Rules about one user's standing in an organization that commands other
// than membership changes depend on: sign-in, deleting an account, acting
// on a current role.

// SoleOwner: the user is the only owner of this active organization, so
// without the user nobody could administer it.
func (o *Organization) SoleOwner(userID string) bool {
	m, ok := o.members[userID]
	return ok && o.Active() && m.Role == RoleOwner && o.owners() == 1
}

// ErrLastOwner refuses deleting or erasing a user who is the last owner of
// an active organization. The organization's id is not named: it may be
// another tenant's.
var ErrLastOwner = errs.Conflict("last_owner",
	"the user is the last owner of an organization: transfer its ownership to another member or delete the organization first")

// CheckNotLastOwner applies the rule to every organization the user
// belongs to, for any caller (the user, an admin, a platform role).
func CheckNotLastOwner(orgs []*Organization, userID string) error {
	for _, o := range orgs {
		if o.SoleOwner(userID) {
			return ErrLastOwner
		}
	}
	return nil
}

// RemoveForErasure ends the membership of a user being erased. No ladder:
// the erasure was authorized on the user's account. Idempotent: without a
// membership nothing is appended. keepLastOwner refuses the last owner of an
// active organization under this stream's lock (the erasure checked it
// before, but ownership may have changed since); it is off only once the
// user is already erased, when keeping the membership would help nobody.
func (o *Organization) RemoveForErasure(userID string, keepLastOwner bool, now time.Time) ([]event.Change, error) {
	if _, ok := o.members[userID]; !ok {
		return nil, nil
	}
	if keepLastOwner && o.SoleOwner(userID) {
		return nil, ErrLastOwner
	}
	return []event.Change{event.New(MemberRemoved, MemberRemovedV1{OrganizationID: o.created.OrganizationID, UserID: userID, At: now})}, nil
}

// ActorNow re-reads a user actor's role from this organization's members:
// commands call it inside their decision, under the stream's lock, so an
// actor demoted since the request was authorized acts with the new role. A
// platform role is re-read only here in the administration organization,
// where it lives. Key actors (no user id) are unchanged.
func (o *Organization) ActorNow(a Actor) Actor {
	if a.UserID == "" {
		return a
	}
	m, ok := o.members[a.UserID]
	a.Role = ""
	if ok {
		a.Role = m.Role
	}
	if o.Administration() && a.PlatformRole != "" {
		a.PlatformRole = m.PlatformRole // "" when no longer a member
	}
	return a
}

// SignInAllowed: a member signs in to an active organization. An owner may
// also sign in to its soft-deleted (not erased) organization when asking
// for it explicitly, so that soft delete stays recoverable by the owners
// themselves; validation limits such a session to OwnerOfDeletedPermissions.
// A default sign-in never lands in a deleted organization.
func (o *Organization) SignInAllowed(userID string, explicit bool) bool {
	m, ok := o.members[userID]
	switch {
	case !ok:
		return false
	case o.Active():
		return true
	}
	return explicit && o.state == StateDeleted && m.Role == RoleOwner
}
