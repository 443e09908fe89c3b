package identity

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
	httpapi "github.com/platform/backend/http"
	identityview "github.com/platform/backend/projections/identity"
)

// The accounts actions whose input or answer is not a command's or a
// query's own (see access_calls.go). Organization routes apply tenant
// isolation first: another tenant's organization is a missing one.

func (d AccountsDeps) createOrganization(ctx context.Context, m commands.Meta, p domain.Principal, in identitycmd.CreateOrganization) (commands.Result[identitycmd.OrganizationCreated], error) {
	if p.UserID == "" {
		return commands.Result[identitycmd.OrganizationCreated]{}, errs.PermissionDenied("organizations are created by a signed-in user, who becomes the owner")
	}
	in.Owner = p.UserID
	return d.Commands.CreateOrganization(ctx, m, in)
}

func (d AccountsDeps) organization(ctx context.Context, p domain.Principal, in OrganizationRef) (identityview.Organization, error) {
	if err := identitycmd.AuthorizeOrganization(p, in.OrganizationID); err != nil {
		return identityview.Organization{}, err
	}
	return d.Accounts.Organization(ctx, in.OrganizationID)
}

func (d AccountsDeps) exportOrganization(ctx context.Context, p domain.Principal, in OrganizationRef) (identityview.OrganizationExport, error) {
	if err := identitycmd.AuthorizeOrganization(p, in.OrganizationID); err != nil {
		return identityview.OrganizationExport{}, err
	}
	return d.Accounts.ExportOrganization(ctx, in.OrganizationID, time.Now().UTC())
}

// MemberList is the answer of organizations.members.list.
type MemberList struct {
	Members []identityview.Member `json:"members"`
}

func (d AccountsDeps) members(ctx context.Context, p domain.Principal, in OrganizationRef) (MemberList, error) {
	if _, err := d.organization(ctx, p, in); err != nil {
		return MemberList{}, err
	}
	list, err := d.Accounts.Members(ctx, in.OrganizationID)
	return MemberList{Members: list}, err
}

// changeMemberRole and removeMember resolve the caller's role in the
// organization first; the command reads it again under the stream's lock.
func (d AccountsDeps) changeMemberRole(ctx context.Context, m commands.Meta, p domain.Principal, in identitycmd.SetMember) (commands.Result[identitycmd.MemberState], error) {
	actor, err := d.actorIn(ctx, p, in.OrganizationID)
	if err != nil {
		return commands.Result[identitycmd.MemberState]{}, err
	}
	return d.Commands.ChangeMemberRole(ctx, m, actor, in)
}

func (d AccountsDeps) removeMember(ctx context.Context, m commands.Meta, p domain.Principal, in MemberRef) (commands.Result[identitycmd.MemberState], error) {
	actor, err := d.actorIn(ctx, p, in.OrganizationID)
	if err != nil {
		return commands.Result[identitycmd.MemberState]{}, err
	}
	return d.Commands.RemoveMember(ctx, m, actor, in.OrganizationID, in.UserID)
}

func (d AccountsDeps) actorIn(ctx context.Context, p domain.Principal, organizationID string) (domain.Actor, error) {
	if err := identitycmd.AuthorizeOrganization(p, organizationID); err != nil {
		return domain.Actor{}, err
	}
	return d.Commands.ActorIn(ctx, p, organizationID)
}

// SlugAvailability is the answer of organizations.slug_availability.
type SlugAvailability struct {
	Available bool   `json:"available"`
	Slug      string `json:"slug"`
	Reason    string `json:"reason"`
}

func (d AccountsDeps) slugAvailability(ctx context.Context, _ domain.Principal, in SlugQuery) (SlugAvailability, error) {
	reason := domain.SlugReason(in.Slug, false)
	if reason == "available" {
		taken, err := d.slugTaken(ctx, in.Slug)
		if err != nil {
			return SlugAvailability{}, err
		}
		reason = domain.SlugReason(in.Slug, taken)
	}
	return SlugAvailability{Available: reason == "available", Slug: in.Slug, Reason: reason}, nil
}

// slugTaken: a uniqueness claim in the event store (the write side) or an
// organization of the read model holds the slug.
func (d AccountsDeps) slugTaken(ctx context.Context, slug string) (bool, error) {
	taken, err := d.Commands.Store().Taken(ctx, domain.UniqueSlug, slug)
	if err != nil {
		return false, errs.Unavailable("identity store unavailable", err)
	}
	if taken {
		return true, nil
	}
	return d.Accounts.SlugInUse(ctx, slug)
}

func (d AccountsDeps) user(ctx context.Context, p domain.Principal, in UserRef) (identityview.User, error) {
	if err := d.Accounts.UserVisible(ctx, p, in.UserID); err != nil {
		return identityview.User{}, err
	}
	return d.Accounts.User(ctx, in.UserID)
}

// exportUser: the export spans every organization the user belongs to, so
// a fellow member of one of them is not enough.
func (d AccountsDeps) exportUser(ctx context.Context, p domain.Principal, in UserRef) (identityview.UserExport, error) {
	if err := d.Accounts.UserVisible(ctx, p, in.UserID); err != nil {
		return identityview.UserExport{}, err
	}
	if p.UserID != in.UserID && !p.PlatformWide() {
		u, err := d.Accounts.User(ctx, in.UserID)
		if err != nil {
			return identityview.UserExport{}, err
		}
		if u.HomeOrganizationID != p.OrganizationID || !p.Allows(permUsersManage) {
			return identityview.UserExport{}, errs.PermissionDenied("only the user, an admin of its home organization or a platform role exports a user")
		}
	}
	return d.Accounts.ExportUser(ctx, in.UserID, time.Now().UTC())
}

func (d AccountsDeps) purgeExpired(ctx context.Context, _ commands.Meta, _ domain.Principal, _ httpapi.NoInput) (identitycmd.PrivacyReport, error) {
	return d.Commands.PurgeExpired(ctx, time.Now().UTC())
}
