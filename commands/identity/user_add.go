package identity

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// UserAdded is the one answer of POST /api/users: the same for an address
// that became an account of the organization and for one whose account
// lives elsewhere and was invited (domain.DecideAddUser). It names no user:
// a user id (or its absence) would tell the two apart. The new member shows
// in the members list; an invitation in the invitations list.
type UserAdded struct {
	Status         string `json:"status"` // accepted
	OrganizationID string `json:"organization_id"`
	Role           string `json:"role"`
	Detail         string `json:"detail"`
}

const userAddedDetail = "The person is added: an address without an account gets an account of this organization; " +
	"an address whose account belongs elsewhere gets an invitation by email and joins when it accepts."

// addUserWorkTimeout bounds the background email of an invitation made by
// POST /api/users.
const addUserWorkTimeout = 30 * time.Second

// AddUser is POST /api/users: add a person to the caller's organization by
// email, without telling whether the address has an account elsewhere.
// What the organization knows already (a member, its own pending
// invitation) is 409 email_taken for every address; otherwise a new address
// becomes an account of the organization (CreateUser, name and password as
// given) and an address with an account elsewhere is invited with the role
// (name and password are ignored: the account is its holder's). The invited
// path spends a password hash when a password was given and sends its email
// in the background, so both paths cost about the same time.
func (h *Handlers) AddUser(ctx context.Context, m commands.Meta, actor domain.Actor, in CreateUser) (commands.Result[UserAdded], error) {
	var zero commands.Result[UserAdded]
	if err := h.requireOrganization(ctx, m.OrganizationID); err != nil {
		return zero, err
	}
	if err := h.requireKeys(); err != nil {
		return zero, err
	}
	org, err := h.loadOrganization(ctx, m.OrganizationID)
	if err != nil {
		return zero, err
	}
	role := domain.RoleOrDefault(in.Role)
	if err := domain.CheckRoleChange(actor, domain.Member{}, domain.Member{Role: role}, org.Administration()); err != nil {
		return zero, err
	}
	// The form is checked before anything depends on the address.
	address := domain.NormalizeEmail(in.Email)
	if !domain.ValidEmail(address) {
		return zero, errs.InvalidField("/email", "must be an email address")
	}
	if in.Password != "" {
		if err := domain.CheckPassword(in.Password); err != nil {
			return zero, err
		}
	}
	added := commands.Result[UserAdded]{Value: UserAdded{Status: "accepted", OrganizationID: m.OrganizationID, Role: role,
		Detail: userAddedDetail}}
	hash, err := h.keys.EmailHash(ctx, address)
	if err != nil {
		return zero, err
	}
	for attempt := 0; ; attempt++ {
		holder, err := h.userByEmailHash(ctx, hash)
		if err != nil {
			return zero, err
		}
		_, member := org.Member(holder)
		pending := false
		if h.onboard != nil {
			if pending, err = h.onboard.invitationPending(ctx, m.OrganizationID, hash); err != nil {
				return zero, err
			}
		}
		switch domain.DecideAddUser(holder != "", holder != "" && member, pending) {
		case domain.AddUserAlready:
			// A retry of this very request (same Idempotency-Key) answers
			// as the first time: the step it took replays.
			if m.IdempotencyKey != "" {
				if replayed, _ := h.replayAddUser(ctx, m, actor, org, in, address, role, member); replayed {
					added.Replayed = true
					return added, nil
				}
			}
			return zero, domain.ErrAlreadyHere
		case domain.AddUserInvite:
			res, err := h.inviteInstead(ctx, m, actor, org, in, address, role)
			if errCode(err) == "invitation_pending" {
				return zero, domain.ErrAlreadyHere
			}
			if err != nil {
				return zero, err
			}
			added.Replayed = res
			return added, nil
		}
		res, err := h.CreateUser(ctx, m, actor, in)
		if errCode(err) == "email_taken" {
			if attempt == 0 {
				continue // claimed a moment ago: decide again with the holder
			}
			return zero, domain.ErrAlreadyHere
		}
		if err != nil {
			return zero, err
		}
		added.Replayed = res.Replayed
		return added, nil
	}
}

// inviteInstead records an invitation for an address whose account lives
// elsewhere and emails it in the background; true when it replayed.
func (h *Handlers) inviteInstead(ctx context.Context, m commands.Meta, actor domain.Actor, org *domain.Organization, in CreateUser,
	address, role string) (bool, error) {
	if in.Password != "" { // the other path hashes it: spend the same time
		domain.VerifyPassword(in.Password, dummyHash)
	}
	if h.onboard == nil {
		return false, errs.Unavailable("invitations are not configured", nil)
	}
	a := h.onboard
	res, code, err := a.recordInvitation(ctx, m, actor, m.Actor.ID, org, address, role)
	if err != nil || res.Replayed {
		return res.Replayed, err
	}
	msg := a.invitationMessage(ctx, org, address, role, code)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), addUserWorkTimeout)
		defer cancel()
		if err := a.mail.Send(ctx, msg); err != nil {
			// The invitation stays pending and listed: an admin revokes it
			// and invites again. The answer could not wait for this.
			a.log.Warn("users.create: the invitation email was not sent", "invitation_id", res.Value.InvitationID, "err", err)
		}
	}()
	return false, nil
}

// replayAddUser repeats the step a first request with the same
// Idempotency-Key took (the account, or the invitation), which answers its
// stored result (replayed) and changes nothing; a different request under
// that key fails and the caller answers 409.
func (h *Handlers) replayAddUser(ctx context.Context, m commands.Meta, actor domain.Actor, org *domain.Organization, in CreateUser,
	address, role string, member bool) (bool, error) {
	if member {
		res, err := h.CreateUser(ctx, m, actor, in)
		return err == nil && res.Replayed, err
	}
	if h.onboard == nil {
		return false, nil
	}
	res, _, err := h.onboard.recordInvitation(ctx, m, actor, m.Actor.ID, org, address, role)
	return err == nil && res.Replayed, err
}

// invitationPending reports whether the organization has a pending
// invitation for the address (by its keyed hash), from the write side.
func (a *Access) invitationPending(ctx context.Context, organizationID, emailHash string) (bool, error) {
	history, err := a.load(ctx, domain.InvitationStreamID(organizationID))
	if err != nil {
		return false, err
	}
	b, err := domain.LoadInvitations(commands.Recorded(history))
	if err != nil {
		return false, err
	}
	return b.PendingFor(emailHash, a.now()), nil
}

// errCode is the problem code of a typed error, "" otherwise.
func errCode(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Code
	}
	return ""
}
