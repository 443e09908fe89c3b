package identity

import (
	"crypto/subtle"
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Invitations. One stream per organization (InvitationStreamID) holds all of
// its invitations: listing the pending ones is one load of the write side
// (no read model to lag or to leak code hashes into exports), one email has
// at most one pending invitation, and accepting or revoking takes the
// stream lock, so a code is used at most once. The invitee's email is sealed
// under the organization's data key (an invitee is not a user yet) beside its
// keyed hash; only the SHA-256 hash of the code's secret is stored.
const (
	StreamInvitation = "identity.invitation"

	InvitationCreated  = "identity.invitation.created"
	InvitationAccepted = "identity.invitation.accepted"
	InvitationRevoked  = "identity.invitation.revoked"
)

// InvitationTTL: an invitation code is valid for a week ("not shown"; ours).
const InvitationTTL = 7 * 24 * time.Hour

// Invitation states; "expired" is derived from the clock, never recorded.
const (
	InvitationStatePending  = "pending"
	InvitationStateExpired  = "expired"
	InvitationStateAccepted = "accepted"
	InvitationStateRevoked  = "revoked"
)

// InvitationStreamID is the invitation stream of an organization.
func InvitationStreamID(organizationID string) string { return "invitations:" + organizationID }

type InvitationCreatedV1 struct {
	InvitationID   string    `json:"invitation_id"`
	OrganizationID string    `json:"organization_id"`
	Email          string    `json:"email"`      // sealed under the organization's key
	EmailHash      string    `json:"email_hash"` // keyed HMAC of the normalized email
	Role           string    `json:"role"`
	InvitedBy      string    `json:"invited_by"`  // principal id
	SecretHash     string    `json:"secret_hash"` // SHA-256 of the code's secret (redacted in the audit view)
	ExpiresAt      time.Time `json:"expires_at"`
	CreatedAt      time.Time `json:"created_at"`
}

type InvitationAcceptedV1 struct {
	InvitationID string    `json:"invitation_id"`
	UserID       string    `json:"user_id"`
	At           time.Time `json:"at"`
}

type InvitationRevokedV1 struct {
	InvitationID string    `json:"invitation_id"`
	RevokedBy    string    `json:"revoked_by"`
	At           time.Time `json:"at"`
}

// Invitation is one invitation as the write model keeps it.
type Invitation struct {
	InvitationCreatedV1
	State      string // pending, accepted or revoked
	AcceptedBy string
	EndedAt    time.Time
}

// StateAt is the state with expiry applied.
func (i Invitation) StateAt(now time.Time) string {
	if i.State == InvitationStatePending && !now.Before(i.ExpiresAt) {
		return InvitationStateExpired
	}
	return i.State
}

// Invitations is the write model of one organization's invitations.
type Invitations struct {
	byID  map[string]*Invitation
	order []string
}

func LoadInvitations(history []event.Recorded) (*Invitations, error) {
	return invitationsFold.Load(&Invitations{byID: map[string]*Invitation{}}, history)
}

var invitationsFold = event.Fold[*Invitations]{
	InvitationCreated: event.Apply(func(b *Invitations, p InvitationCreatedV1) {
		b.byID[p.InvitationID] = &Invitation{InvitationCreatedV1: p, State: InvitationStatePending}
		b.order = append(b.order, p.InvitationID)
	}),
	InvitationAccepted: event.Apply(func(b *Invitations, p InvitationAcceptedV1) {
		if i, ok := b.byID[p.InvitationID]; ok {
			i.State, i.AcceptedBy, i.EndedAt = InvitationStateAccepted, p.UserID, p.At
		}
	}),
	InvitationRevoked: event.Apply(func(b *Invitations, p InvitationRevokedV1) {
		if i, ok := b.byID[p.InvitationID]; ok {
			i.State, i.EndedAt = InvitationStateRevoked, p.At
		}
	}),
}

// Get returns one invitation.
func (b *Invitations) Get(id string) (Invitation, bool) {
	i, ok := b.byID[id]
	if !ok {
		return Invitation{}, false
	}
	return *i, true
}

// List returns the invitations in creation order; pendingOnly keeps those
// still usable at now.
func (b *Invitations) List(now time.Time, pendingOnly bool) []Invitation {
	out := []Invitation{}
	for _, id := range b.order {
		i := *b.byID[id]
		if pendingOnly && i.StateAt(now) != InvitationStatePending {
			continue
		}
		out = append(out, i)
	}
	return out
}

// NewInvitation is the input of an invitation; the caller seals the email
// and hashes the code.
type NewInvitation struct {
	ID, OrganizationID, SealedEmail, EmailHash, Role, InvitedBy, CodeHash string
}

// Create invites an email with an organization role. The ladder applies as
// for any membership change: the inviter assigns no role above its own, only
// an owner invites an owner, and an invitation never carries a platform role.
func (b *Invitations) Create(a Actor, n NewInvitation, administrationOrg bool, now time.Time) ([]event.Change, error) {
	if err := CheckRoleChange(a, Member{}, Member{Role: n.Role}, administrationOrg); err != nil {
		return nil, err
	}
	if n.ID == "" || n.OrganizationID == "" || n.EmailHash == "" || n.SealedEmail == "" || n.CodeHash == "" {
		return nil, errs.InvalidField("", "an invitation needs an id, an organization, an email and a code")
	}
	if _, exists := b.byID[n.ID]; exists {
		return nil, errs.Conflict("invitation_exists", "the invitation already exists")
	}
	for _, i := range b.byID {
		if i.EmailHash == n.EmailHash && i.StateAt(now) == InvitationStatePending {
			return nil, errs.Conflict("invitation_pending", "this email already has a pending invitation; revoke it to invite again")
		}
	}
	return []event.Change{event.New(InvitationCreated, InvitationCreatedV1{InvitationID: n.ID, OrganizationID: n.OrganizationID,
		Email: n.SealedEmail, EmailHash: n.EmailHash, Role: n.Role, InvitedBy: n.InvitedBy, SecretHash: n.CodeHash,
		ExpiresAt: now.Add(InvitationTTL), CreatedAt: now})}, nil
}

var errInvitationNotFound = errs.NotFound("invitation")

// Check tells whether a code's secret hash opens a usable invitation. An
// unknown invitation or a wrong secret is 404; the states after that are
// only told to the holder of the right code.
func (b *Invitations) Check(id, codeHash string, now time.Time) (Invitation, error) {
	i, ok := b.byID[id]
	if !ok || subtle.ConstantTimeCompare([]byte(i.SecretHash), []byte(codeHash)) != 1 {
		return Invitation{}, errInvitationNotFound
	}
	switch i.StateAt(now) {
	case InvitationStateAccepted:
		return Invitation{}, errs.Conflict("invitation_accepted", "the invitation was already accepted")
	case InvitationStateRevoked:
		return Invitation{}, errs.Conflict("invitation_revoked", "the invitation was revoked")
	case InvitationStateExpired:
		return Invitation{}, errs.Conflict("invitation_expired", "the invitation has expired")
	}
	return *i, nil
}

// Accept uses the invitation for a user; a second accept fails.
func (b *Invitations) Accept(id, codeHash, userID string, now time.Time) ([]event.Change, error) {
	if _, err := b.Check(id, codeHash, now); err != nil {
		return nil, err
	}
	if userID == "" {
		return nil, errs.InvalidField("", "an accepted invitation names its user")
	}
	return []event.Change{event.New(InvitationAccepted, InvitationAcceptedV1{InvitationID: id, UserID: userID, At: now})}, nil
}

// Revoke ends a pending (or expired) invitation; revoking twice changes
// nothing. An actor may not revoke an invitation to a role above its own.
func (b *Invitations) Revoke(a Actor, id, by string, now time.Time) ([]event.Change, error) {
	i, ok := b.byID[id]
	if !ok {
		return nil, errInvitationNotFound
	}
	if !a.platform() && Rank(i.Role) > Rank(a.Role) {
		return nil, errs.PermissionDenied("an invitation to a role above your own cannot be revoked")
	}
	switch i.State {
	case InvitationStateRevoked:
		return nil, nil
	case InvitationStateAccepted:
		return nil, errs.Conflict("invitation_accepted", "the invitation was already accepted")
	}
	return []event.Change{event.New(InvitationRevoked, InvitationRevokedV1{InvitationID: id, RevokedBy: by, At: now})}, nil
}

// AddInvited makes an invitee a member with the invited role. The ladder was
// applied when the invitation was made (by its inviter); here the
// organization must be active and the user not a member yet.
func (o *Organization) AddInvited(userID, role string, now time.Time) ([]event.Change, error) {
	if !o.Visible() {
		return nil, errs.NotFound("organization")
	}
	if !o.Active() {
		return nil, errs.Conflict("organization_deleted", "the organization is deleted")
	}
	if !slices.Contains(Roles, role) {
		return nil, errs.InvalidField("/role", "must be one of owner, super_admin, admin, member, guest")
	}
	if _, member := o.members[userID]; member {
		return nil, errs.Conflict("already_member", "the user is already a member of the organization")
	}
	return []event.Change{event.New(MemberAdded, MemberV1{OrganizationID: o.created.OrganizationID, UserID: userID, Role: role, At: now})}, nil
}
