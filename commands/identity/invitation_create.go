package identity

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/providers/email"
)

// PermUsersManage guards invitations; same-organization owners,
// super_admins and admins hold it on this org-scoped admin route.
const PermUsersManage = "app_platform_auth.users:manage"

var RuleUsersManage = domain.Rule{Permission: PermUsersManage, OrgAdminRoute: true}

// CreateInvitation is POST /api/organizations/{orgId}/invitations.
type CreateInvitation struct {
	OrganizationID string `json:"orgId"`
	Email          string `json:"email"`
	Role           string `json:"role"`
}

// InvitationView is an invitation as routes show it. Email is set only by
// the list (command answers are kept for idempotent replays and hold no
// personal data); no hash of any kind is ever shown.
type InvitationView struct {
	InvitationID   string     `json:"invitation_id"`
	OrganizationID string     `json:"organization_id"`
	Email          string     `json:"email,omitempty"`
	Role           string     `json:"role"`
	State          string     `json:"state"`
	InvitedBy      string     `json:"invited_by"`
	CreatedAt      time.Time  `json:"created_at"`
	ExpiresAt      time.Time  `json:"expires_at"`
	AcceptedBy     string     `json:"accepted_by,omitempty"`
	EndedAt        *time.Time `json:"ended_at,omitempty"`
}

func invitationView(i domain.Invitation, now time.Time) InvitationView {
	v := InvitationView{InvitationID: i.InvitationID, OrganizationID: i.OrganizationID, Role: i.Role, State: i.StateAt(now),
		InvitedBy: i.InvitedBy, CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt, AcceptedBy: i.AcceptedBy}
	if !i.EndedAt.IsZero() {
		at := i.EndedAt
		v.EndedAt = &at
	}
	return v
}

// CreateInvitation records an invitation (role ladder of the inviter; one
// pending invitation per email) and emails its single-use code to the
// invitee. The code is never in the answer. If the email cannot be sent, the
// invitation is revoked again and the call fails with 503.
func (a *Access) CreateInvitation(ctx context.Context, m commands.Meta, p domain.Principal, in CreateInvitation) (commands.Result[InvitationView], error) {
	var zero commands.Result[InvitationView]
	if err := a.Authorize(ctx, p, in.OrganizationID, RuleUsersManage); err != nil {
		return zero, err
	}
	if err := a.h.requireOrganization(ctx, in.OrganizationID); err != nil {
		return zero, err
	}
	if err := a.h.requireKeys(); err != nil {
		return zero, err
	}
	address := domain.NormalizeEmail(in.Email)
	if !domain.ValidEmail(address) {
		return zero, errs.InvalidField("/email", "must be an email address")
	}
	actor, err := a.h.ActorIn(ctx, p, in.OrganizationID)
	if err != nil {
		return zero, err
	}
	org, err := a.h.loadOrganization(ctx, in.OrganizationID)
	if err != nil {
		return zero, err
	}
	role := domain.RoleOrDefault(in.Role)
	// The ladder first: nothing is sealed or sent for a refused role.
	if err := domain.CheckRoleChange(actor, domain.Member{}, domain.Member{Role: role}, org.Administration()); err != nil {
		return zero, err
	}
	res, code, err := a.recordInvitation(ctx, m, actor, p.ID, org, address, role)
	if err != nil || res.Replayed {
		return res, err // a replay sends nothing again: the secret is gone
	}
	msg := a.invitationMessage(ctx, org, address, role, code)
	if err := a.mail.Send(ctx, msg); err != nil {
		rm := m
		rm.IdempotencyKey = ""
		if _, rerr := a.revokeInvitation(ctx, rm, actor, in.OrganizationID, res.Value.InvitationID, p.ID); rerr != nil {
			a.log.Warn("invitation email failed and the invitation was not revoked", "invitation_id", res.Value.InvitationID, "err", rerr)
		}
		return zero, errs.Unavailable("the invitation email could not be sent; nothing is pending", err)
	}
	return res, nil
}

// recordInvitation seals the address under the organization's key and
// records the invitation (ladder, one pending invitation per address); it
// answers the invitation and its code (the secret is in the code only).
func (a *Access) recordInvitation(ctx context.Context, m commands.Meta, actor domain.Actor, invitedBy string, org *domain.Organization,
	address, role string) (commands.Result[InvitationView], string, error) {
	var zero commands.Result[InvitationView]
	orgID := org.State().OrganizationID
	emailHash, err := a.h.keys.EmailHash(ctx, address)
	if err != nil {
		return zero, "", err
	}
	sealed, err := a.h.keys.Seal(ctx, orgID, address)
	if err != nil {
		return zero, "", err
	}
	secret, err := newSecret()
	if err != nil {
		return zero, "", err
	}
	id := uuid.Must(uuid.NewV7()).String()
	m.OrganizationID = orgID
	res, err := commands.Execute(ctx, a.h.store, m, domain.StreamInvitation, domain.InvitationStreamID(orgID), domain.LoadInvitations,
		func(b *domain.Invitations) ([]event.Change, error) {
			return b.Create(actor, domain.NewInvitation{ID: id, OrganizationID: orgID, SealedEmail: sealed,
				EmailHash: emailHash, Role: role, InvitedBy: invitedBy, CodeHash: HashSecret(secret)}, org.Administration(), a.now())
		},
		func(b *domain.Invitations) InvitationView {
			i, _ := b.Get(id)
			return invitationView(i, a.now())
		})
	return res, InvitationPrefix + orgID + "." + id + "." + secret, err
}

// invitationMessage is the email that carries an invitation's code.
func (a *Access) invitationMessage(ctx context.Context, org *domain.Organization, address, role, code string) email.Message {
	name, err := a.h.keys.Open(ctx, org.State().OrganizationID, org.State().Name)
	if err != nil || name == "" {
		name = "an organization"
	}
	return email.Message{To: address, Subject: oneLine("You are invited to join " + name),
		Text: "You are invited to join " + name + " as " + role + ".\n\n" +
			"Accept within 7 days (the link works once):\n\n" + a.publicLink("/invitations/accept", "code", code) + "\n\n" +
			"Or send this code with POST /invitations/accept: " + code + "\n" +
			"With an account for this address, sign in first; without one, send a name and a password with the code.\n\n" +
			"If you do not expect this invitation, ignore this message.\n"}
}
