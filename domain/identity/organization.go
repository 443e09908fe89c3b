package identity

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// slugPattern: lowercase alphanumeric with internal hyphens; length checked apart.
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidSlug reports whether s is a well-formed organization slug (3..48).
func ValidSlug(s string) bool { return len(s) >= 3 && len(s) <= 48 && slugPattern.MatchString(s) }

// ReservedSlugs are subdomains the platform keeps for itself; an
// organization may not take them (slug availability answers "reserved").
var ReservedSlugs = []string{
	"www", "api", "admin", "app", "apps", "auth", "login", "logout", "register", "signup", "signin", "sso", "oauth",
	"account", "accounts", "settings", "security", "session", "sessions", "validate", "status", "dashboard", "console",
	"mail", "email", "smtp", "static", "assets", "cdn", "media", "docs", "help", "support", "billing", "payments",
	"checkout", "platform", "identity", "gateway", "studio", "publishing", "contacts", "agent", "design", "internal",
	"ops", "metrics", "root", "system", "dev", "staging", "preview", "test", "sandbox", "localhost",
}

// SlugReason answers slug availability in the seed's order of checks:
// empty, invalid (format), reserved, then taken (from the caller's lookup),
// else available.
func SlugReason(slug string, taken bool) string {
	switch {
	case slug == "":
		return "empty"
	case !ValidSlug(slug):
		return "invalid"
	case slices.Contains(ReservedSlugs, slug):
		return "reserved"
	case taken:
		return "taken"
	}
	return "available"
}

// Lifecycle states shared by organizations and users.
const (
	StateActive  = "active"
	StateDeleted = "deleted" // soft-deleted: a recoverable tombstone
	StateErased  = "erased"  // permanently deleted: get and export answer 404
)

// Organization is the write model of one organization and its members.
type Organization struct {
	created   OrganizationCreatedV1
	state     string
	deletedAt time.Time
	members   map[string]Member
}

func LoadOrganization(history []event.Recorded) (*Organization, error) {
	return organizationFold.Load(&Organization{members: map[string]Member{}}, history)
}

var organizationFold = event.Fold[*Organization]{
	OrganizationCreated: event.Apply(func(o *Organization, p OrganizationCreatedV1) {
		o.created, o.state = p, StateActive
	}),
	OrganizationDeleted: event.Apply(func(o *Organization, p OrganizationChangedV1) {
		o.state, o.deletedAt = StateDeleted, p.At
	}),
	OrganizationRestored: event.Mark(func(o *Organization) {
		o.state, o.deletedAt = StateActive, time.Time{}
	}),
	OrganizationPermanentlyDeleted: event.Mark(func(o *Organization) {
		o.state, o.members = StateErased, map[string]Member{}
	}),
	MemberAdded:       event.Apply((*Organization).memberSet),
	MemberRoleChanged: event.Apply((*Organization).memberSet),
	MemberRemoved: event.Apply(func(o *Organization, p MemberRemovedV1) {
		delete(o.members, p.UserID)
	}),
}

func (o *Organization) memberSet(p MemberV1) {
	o.members[p.UserID] = Member{UserID: p.UserID, Role: RoleOrDefault(p.Role), PlatformRole: p.PlatformRole}
}

func (o *Organization) Exists() bool                 { return o.state != "" }
func (o *Organization) State() OrganizationCreatedV1 { return o.created }
func (o *Organization) Lifecycle() string            { return o.state }
func (o *Organization) Active() bool                 { return o.state == StateActive }
func (o *Organization) Erased() bool                 { return o.state == StateErased }
func (o *Organization) DeletedAt() time.Time         { return o.deletedAt }
func (o *Organization) Administration() bool         { return o.created.Administration }

// Member returns a user's membership.
func (o *Organization) Member(userID string) (Member, bool) {
	m, ok := o.members[userID]
	return m, ok
}

// Visible is false for a missing or permanently deleted organization: both
// answer 404 alike.
func (o *Organization) Visible() bool { return o.Exists() && !o.Erased() }

// NewOrganization is the input of creation. Name is the clear name, only to
// check it; SealedName is what the event keeps.
type NewOrganization struct {
	ID, Name, SealedName, Slug         string
	Administration, DeveloperWorkspace bool
	// Owner, when set, becomes the first member with role owner (and
	// platform_super_admin in the administration organization).
	Owner string
}

func (o *Organization) Create(n NewOrganization, now time.Time) ([]event.Change, error) {
	var fields []errs.Field
	if strings.TrimSpace(n.Name) == "" || len(n.Name) > 200 {
		fields = append(fields, errs.Field{Pointer: "/name", Detail: "must be 1 to 200 characters"})
	}
	if !ValidSlug(n.Slug) {
		fields = append(fields, errs.Field{Pointer: "/slug", Detail: "lowercase letters and digits with internal hyphens, 3 to 48 characters"})
	} else if slices.Contains(ReservedSlugs, n.Slug) {
		fields = append(fields, errs.Field{Pointer: "/slug", Detail: "this slug is reserved by the platform"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if o.Exists() {
		return nil, errs.Conflict("organization_exists", "the organization already exists")
	}
	created := event.New(OrganizationCreated, OrganizationCreatedV1{OrganizationID: n.ID, Name: n.SealedName, Slug: n.Slug,
		Administration: n.Administration, DeveloperWorkspace: n.DeveloperWorkspace, CreatedAt: now})
	created.Unique = []event.Unique{{Kind: UniqueSlug, Value: n.Slug}}
	if n.Administration {
		created.Unique = append(created.Unique, event.Unique{Kind: UniqueAdministration, Value: AdministrationClaim})
	}
	changes := []event.Change{created}
	if n.Owner != "" {
		owner := MemberV1{OrganizationID: n.ID, UserID: n.Owner, Role: RoleOwner, At: now}
		if n.Administration {
			owner.PlatformRole = RolePlatformSuperAdmin
		}
		changes = append(changes, event.New(MemberAdded, owner))
	}
	return changes, nil
}

func (o *Organization) requireVisible() error {
	if !o.Visible() {
		return errs.NotFound("organization")
	}
	return nil
}

// SoftDelete leaves a recoverable tombstone. The administration organization
// is never deleted.
func (o *Organization) SoftDelete(now time.Time) ([]event.Change, error) {
	if err := o.requireVisible(); err != nil {
		return nil, err
	}
	if o.Administration() {
		return nil, errs.Conflict("administration_organization", "the platform administration organization cannot be deleted")
	}
	if o.state == StateDeleted {
		return nil, nil
	}
	return []event.Change{event.New(OrganizationDeleted, OrganizationChangedV1{OrganizationID: o.created.OrganizationID, At: now})}, nil
}

func (o *Organization) Restore(now time.Time) ([]event.Change, error) {
	if err := o.requireVisible(); err != nil {
		return nil, err
	}
	if o.state == StateActive {
		return nil, nil
	}
	return []event.Change{event.New(OrganizationRestored, OrganizationChangedV1{OrganizationID: o.created.OrganizationID, At: now})}, nil
}

// DeletePermanently erases a soft-deleted organization and frees its slug
// (seed 001: soft delete first; never the administration organization).
func (o *Organization) DeletePermanently(now time.Time) ([]event.Change, error) {
	if err := o.requireVisible(); err != nil {
		return nil, err
	}
	if o.Administration() {
		return nil, errs.Conflict("administration_organization", "the platform administration organization cannot be deleted")
	}
	if o.state != StateDeleted {
		return nil, errs.Conflict("not_soft_deleted", "delete the organization (soft delete) before deleting it permanently")
	}
	erased := event.New(OrganizationPermanentlyDeleted, OrganizationChangedV1{OrganizationID: o.created.OrganizationID, At: now})
	erased.Unique = []event.Unique{{Kind: UniqueSlug, Value: o.created.Slug, Release: true}}
	return []event.Change{erased}, nil
}

// SetMember adds a member or changes a member's role, after the ladder check.
func (o *Organization) SetMember(a Actor, next Member, now time.Time) ([]event.Change, error) {
	if !o.Active() {
		return nil, errs.NotFound("organization")
	}
	next.Role = RoleOrDefault(next.Role)
	current, exists := o.members[next.UserID]
	if err := CheckRoleChange(a, current, next, o.Administration()); err != nil {
		return nil, err
	}
	if exists && current == next {
		return nil, nil
	}
	if exists && current.Role == RoleOwner && next.Role != RoleOwner && o.owners() == 1 {
		return nil, errs.Conflict("last_owner", "an organization keeps at least one owner")
	}
	typ := MemberAdded
	if exists {
		typ = MemberRoleChanged
	}
	return []event.Change{event.New(typ, MemberV1{OrganizationID: o.created.OrganizationID, UserID: next.UserID,
		Role: next.Role, PlatformRole: next.PlatformRole, At: now})}, nil
}

// RemoveMember ends a membership; the last owner stays.
func (o *Organization) RemoveMember(a Actor, userID string, now time.Time) ([]event.Change, error) {
	if !o.Visible() {
		return nil, errs.NotFound("organization")
	}
	current, ok := o.members[userID]
	if !ok {
		return nil, errs.NotFound("member")
	}
	if a.UserID != userID { // leaving is always allowed; removing others needs the ladder
		// Removal takes a platform role away too: the next state holds none.
		if err := CheckRoleChange(a, current, Member{UserID: userID, Role: RoleGuest}, o.Administration()); err != nil {
			return nil, err
		}
	}
	if current.Role == RoleOwner && o.owners() == 1 {
		return nil, errs.Conflict("last_owner", "an organization keeps at least one owner")
	}
	return []event.Change{event.New(MemberRemoved, MemberRemovedV1{OrganizationID: o.created.OrganizationID, UserID: userID, At: now})}, nil
}

func (o *Organization) owners() int {
	n := 0
	for _, m := range o.members {
		if m.Role == RoleOwner {
			n++
		}
	}
	return n
}
