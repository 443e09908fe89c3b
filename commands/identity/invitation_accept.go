package identity

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// AcceptInvitation is POST /invitations/accept. Name and Password are for an
// invitee without an account; an invitee with one sends its session token.
type AcceptInvitation struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	Password string `json:"password"`
}

// InvitationAccepted: the membership exists. A new account comes with a
// session (like sign-up); a signed-in invitee keeps its current session and
// signs in to the organization when it wants (organizationId at /login).
type InvitationAccepted struct {
	InvitationID   string         `json:"invitation_id"`
	OrganizationID string         `json:"organization_id"`
	UserID         string         `json:"user_id"`
	Role           string         `json:"role"`
	CreatedUser    bool           `json:"created_user"`
	Session        *SessionTokens `json:"session,omitempty"`
}

// OptionalPrincipal validates a credential sent to a public route that
// accepts one (invitation accept); "" is no principal.
func (a *Access) OptionalPrincipal(ctx context.Context, token string) (domain.Principal, error) {
	if token == "" {
		return domain.Principal{}, nil
	}
	return a.h.Validate(ctx, token)
}

// AcceptInvitation checks the code, then: with a session of the invited
// email's user, uses the invitation and adds the membership; without a
// session, when no account holds the email, creates the user (claiming the
// email, home organization: the inviting one), uses the invitation, adds the
// membership and signs in. An account that exists needs its session (401).
func (a *Access) AcceptInvitation(ctx context.Context, m commands.Meta, p domain.Principal, in AcceptInvitation) (InvitationAccepted, error) {
	orgID, invID, secret, ok := parseInvitationCode(in.Code)
	if !ok {
		return InvitationAccepted{}, errInvitationCode
	}
	if err := a.h.requireKeys(); err != nil {
		return InvitationAccepted{}, err
	}
	hash := HashSecret(secret)
	history, err := a.load(ctx, domain.InvitationStreamID(orgID))
	if err != nil {
		return InvitationAccepted{}, err
	}
	book, err := domain.LoadInvitations(commands.Recorded(history))
	if err != nil {
		return InvitationAccepted{}, err
	}
	inv, err := book.Check(invID, hash, a.now())
	if err != nil {
		return InvitationAccepted{}, err
	}
	if err := a.h.requireOrganization(ctx, orgID); err != nil {
		return InvitationAccepted{}, err
	}
	m.IdempotencyKey = "" // a new account's answer carries session secrets
	out := InvitationAccepted{InvitationID: invID, OrganizationID: orgID, Role: inv.Role}
	if p.Type != "" {
		if p.Type != "user" || p.UserID == "" {
			return InvitationAccepted{}, errNeedsSession
		}
		if err := a.acceptAsMember(ctx, m, p.UserID, inv, hash); err != nil {
			return InvitationAccepted{}, err
		}
		out.UserID = p.UserID
		return out, nil
	}
	taken, err := a.h.store.Taken(ctx, domain.UniqueEmail, inv.EmailHash)
	if err != nil {
		return InvitationAccepted{}, errs.Unavailable("identity store unavailable", err)
	}
	if taken {
		return InvitationAccepted{}, errs.AuthenticationRequired("an account exists for the invited email: sign in as that user and accept again")
	}
	if in.Password == "" {
		return InvitationAccepted{}, errs.InvalidField("/password", "required to create the invited account")
	}
	if err := checkNewPassword(in.Password, "/password"); err != nil {
		return InvitationAccepted{}, err
	}
	address, err := a.h.keys.Open(ctx, orgID, inv.Email)
	if err != nil {
		return InvitationAccepted{}, err
	}
	userID := uuid.Must(uuid.NewV7()).String()
	m.Actor = eventstore.Actor{ID: userID, Type: "user"}
	if _, err := a.h.createUserStream(ctx, m, CreateUser{Email: address, Name: in.Name, Password: in.Password}, orgID, userID); err != nil {
		return InvitationAccepted{}, err
	}
	if err := a.useInvitation(ctx, m, inv, hash, userID); err != nil {
		a.h.compensate(ctx, m, userID)
		return InvitationAccepted{}, err
	}
	if err := a.addInvited(ctx, m, inv, userID); err != nil {
		a.h.compensate(ctx, m, userID)
		return InvitationAccepted{}, err
	}
	out.UserID, out.CreatedUser = userID, true
	session, err := a.startSessionFor(ctx, m, userID, orgID, "")
	if err != nil {
		a.log.Warn("invitation accepted; no session started", "user_id", userID, "err", err)
		return out, nil
	}
	out.Session = &session
	return out, nil
}

// acceptAsMember: the signed-in user must be the invited email's user and
// not a member yet (checked before the invitation is used, so a refusal
// leaves it pending).
func (a *Access) acceptAsMember(ctx context.Context, m commands.Meta, userID string, inv domain.Invitation, hash string) error {
	u, err := a.h.loadUser(ctx, userID)
	if err != nil {
		return err
	}
	if !u.Active() || u.State().EmailHash == "" || u.State().EmailHash != inv.EmailHash {
		return errs.PermissionDenied("this invitation was sent to another email address")
	}
	o, err := a.h.loadOrganization(ctx, inv.OrganizationID)
	if err != nil {
		return err
	}
	if _, member := o.Member(userID); member {
		return errs.Conflict("already_member", "the user is already a member of the organization")
	}
	m.Actor = eventstore.Actor{ID: userID, Type: "user"}
	if err := a.useInvitation(ctx, m, inv, hash, userID); err != nil {
		return err
	}
	return a.addInvited(ctx, m, inv, userID)
}

// useInvitation records the acceptance under the invitation stream's lock:
// of two concurrent accepts, the second fails with invitation_accepted.
func (a *Access) useInvitation(ctx context.Context, m commands.Meta, inv domain.Invitation, hash, userID string) error {
	m.OrganizationID = inv.OrganizationID
	_, err := commands.Run(ctx, a.h.store, m, domain.StreamInvitation, domain.InvitationStreamID(inv.OrganizationID),
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			b, err := domain.LoadInvitations(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			changes, err := b.Accept(inv.InvitationID, hash, userID, a.now())
			return changes, struct{}{}, err
		})
	return err
}

// addInvited adds the membership with the invited role on the
// organization's stream.
func (a *Access) addInvited(ctx context.Context, m commands.Meta, inv domain.Invitation, userID string) error {
	m.OrganizationID = inv.OrganizationID
	_, err := commands.Run(ctx, a.h.store, m, domain.StreamOrganization, inv.OrganizationID,
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			o, err := domain.LoadOrganization(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			changes, err := o.AddInvited(userID, inv.Role, a.now())
			return changes, struct{}{}, err
		})
	return err
}
