package identity_test

import (
	"bytes"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func TestRoleLadder(t *testing.T) {
	if identity.RoleOrDefault("") != identity.RoleMember {
		t.Fatal("a missing role claim means member")
	}
	order := []string{"owner", "super_admin", "admin", "member", "guest"}
	for i := 1; i < len(order); i++ {
		if identity.Rank(order[i-1]) <= identity.Rank(order[i]) {
			t.Fatalf("%s must rank above %s", order[i-1], order[i])
		}
	}
	if identity.Rank("emperor") != 0 || identity.Rank("platform_admin") != 0 {
		t.Fatal("unknown and platform roles have no organization rank")
	}
	owner := identity.Actor{UserID: "a", Role: "owner"}
	admin := identity.Actor{UserID: "a", Role: "admin"}
	superAdmin := identity.Actor{UserID: "a", Role: "super_admin"}
	member := identity.Actor{UserID: "a", Role: "member"}
	platform := identity.Actor{UserID: "a", PlatformRole: "platform_admin"}
	platformSuper := identity.Actor{UserID: "a", PlatformRole: "platform_super_admin"}
	m := func(role, platform string) identity.Member {
		return identity.Member{UserID: "b", Role: role, PlatformRole: platform}
	}
	tests := []struct {
		name          string
		actor         identity.Actor
		current, next identity.Member
		adminOrg      bool
		want          errs.Kind // KindInternal = allowed
	}{
		{"owner promotes member to admin", owner, m("member", ""), m("admin", ""), false, errs.KindInternal},
		{"owner makes an owner", owner, m("admin", ""), m("owner", ""), false, errs.KindInternal},
		{"admin promotes guest to member", admin, m("guest", ""), m("member", ""), false, errs.KindInternal},
		{"admin assigns admin (own level)", admin, m("member", ""), m("admin", ""), false, errs.KindInternal},
		{"admin cannot assign super_admin", admin, m("member", ""), m("super_admin", ""), false, errs.KindPermissionDenied},
		{"admin cannot touch a super_admin", admin, m("super_admin", ""), m("member", ""), false, errs.KindPermissionDenied},
		{"super_admin cannot make an owner", superAdmin, m("admin", ""), m("owner", ""), false, errs.KindPermissionDenied},
		{"super_admin cannot demote an owner", superAdmin, m("owner", ""), m("admin", ""), false, errs.KindPermissionDenied},
		{"member changes nobody", member, m("guest", ""), m("guest", ""), false, errs.KindPermissionDenied},
		{"non-member changes nobody", identity.Actor{UserID: "a"}, m("guest", ""), m("member", ""), false, errs.KindPermissionDenied},
		{"unknown role", owner, m("member", ""), m("emperor", ""), false, errs.KindInvalidInput},
		{"platform admin bypasses the ladder", platform, m("member", ""), m("owner", ""), false, errs.KindInternal},
		{"platform roles only in the administration org", platformSuper, m("member", ""), m("member", "platform_admin"), false, errs.KindInvalidInput},
		{"platform_super_admin grants platform roles", platformSuper, m("member", ""), m("member", "platform_admin"), true, errs.KindInternal},
		{"platform_admin cannot grant platform roles", platform, m("member", ""), m("member", "platform_admin"), true, errs.KindPermissionDenied},
		{"an owner cannot grant platform roles", owner, m("member", ""), m("member", "platform_super_admin"), true, errs.KindPermissionDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := identity.CheckRoleChange(tc.actor, tc.current, tc.next, tc.adminOrg)
			if got := errs.KindOf(err); (err == nil) != (tc.want == errs.KindInternal) || (err != nil && got != tc.want) {
				t.Fatalf("got %v, want kind %d", err, tc.want)
			}
		})
	}
}

func TestSlugReasonOrder(t *testing.T) {
	tests := []struct {
		slug  string
		taken bool
		want  string
	}{
		{"", true, "empty"},
		{"ab", true, "invalid"},    // format before anything else
		{"Admin", true, "invalid"}, // uppercase is a format error, not reserved
		{"www", true, "reserved"},  // reserved before taken
		{"api", false, "reserved"},
		{"acme", true, "taken"},
		{"acme", false, "available"},
		{"a-b-c", false, "available"},
		{"a--b", false, "invalid"},
	}
	for _, tc := range tests {
		if got := identity.SlugReason(tc.slug, tc.taken); got != tc.want {
			t.Errorf("SlugReason(%q, taken=%v) = %q, want %q", tc.slug, tc.taken, got, tc.want)
		}
	}
}

func TestPasswordHashing(t *testing.T) {
	salt := bytes.Repeat([]byte{7}, 16)
	h := identity.HashPassword("correct horse battery", salt, identity.DefaultPasswordParams)
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q does not carry argon2id and its parameters", h)
	}
	if h == identity.HashPassword("correct horse battery", bytes.Repeat([]byte{8}, 16), identity.DefaultPasswordParams) {
		t.Fatal("a different salt must give a different hash")
	}
	cheap := identity.PasswordParams{MemoryKiB: 1024, Iterations: 1, Parallelism: 1, KeyLength: 16}
	old := identity.HashPassword("correct horse battery", salt, cheap)
	tests := []struct {
		name, pw, hash string
		want           bool
	}{
		{"right password", "correct horse battery", h, true},
		{"wrong password", "correct horse battery!", h, false},
		{"empty password", "", h, false},
		{"hash with other stored parameters", "correct horse battery", old, true},
		{"malformed hash", "correct horse battery", "$argon2id$v=19$m=x$", false},
		{"other algorithm", "correct horse battery", strings.Replace(h, "argon2id", "argon2i", 1), false},
		{"absurd memory cost refused", "correct horse battery", strings.Replace(h, "m=19456", "m=99999999", 1), false},
		{"empty hash (passwordless)", "correct horse battery", "", false},
	}
	for _, tc := range tests {
		if got := identity.VerifyPassword(tc.pw, tc.hash); got != tc.want {
			t.Errorf("%s: VerifyPassword = %v, want %v", tc.name, got, tc.want)
		}
	}
	for pw, ok := range map[string]bool{"short": false, "ten chars!": true, strings.Repeat("x", 257): false} {
		if (identity.CheckPassword(pw) == nil) != ok {
			t.Errorf("CheckPassword(%d chars) ok=%v", len(pw), !ok)
		}
	}
}

func TestSealing(t *testing.T) {
	key := bytes.Repeat([]byte{1}, 32)
	sealed, err := identity.Seal(key, "user-1", "ada@example.com", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if !identity.IsSealed(sealed) || strings.Contains(sealed, "ada") {
		t.Fatalf("sealed value %q", sealed)
	}
	if got, err := identity.Open(key, "user-1", sealed); err != nil || got != "ada@example.com" {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := identity.Open(key, "user-2", sealed); err == nil {
		t.Fatal("a value moved to another subject must not open")
	}
	if _, err := identity.Open(bytes.Repeat([]byte{2}, 32), "user-1", sealed); err == nil {
		t.Fatal("another key must not open it")
	}
	if got, _ := identity.Open(key, "user-1", "legacy clear text"); got != "legacy clear text" {
		t.Fatal("clear legacy values read as they are")
	}
	if identity.EmailHash([]byte("p"), " Ada@Example.COM ") != identity.EmailHash([]byte("p"), "ada@example.com") {
		t.Fatal("the email hash is over the normalized email")
	}
	if identity.EmailHash([]byte("p"), "ada@example.com") == identity.EmailHash([]byte("q"), "ada@example.com") {
		t.Fatal("the email hash is keyed")
	}
}

func apply(t *testing.T, history []event.Recorded, changes []event.Change, err error) []event.Recorded {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return eventtest.Append(t, history, changes)
}

// TestOrganizationLifecycle: given an organization's events, when a
// lifecycle or membership decision, then its events or its refusal.
func TestOrganizationLifecycle(t *testing.T) {
	acme := identity.NewOrganization{ID: "o", Name: "Acme", SealedName: "enc:v1:x", Slug: "acme", Owner: "u1"}
	created := event.New(identity.OrganizationCreated, identity.OrganizationCreatedV1{OrganizationID: "o", Name: "enc:v1:x", Slug: "acme", CreatedAt: t0})
	created.Unique = []event.Unique{{Kind: identity.UniqueSlug, Value: "acme"}}
	owner := event.New(identity.MemberAdded, identity.MemberV1{OrganizationID: "o", UserID: "u1", Role: identity.RoleOwner, At: t0})
	later := t0.Add(time.Hour)
	deleted := event.New(identity.OrganizationDeleted, identity.OrganizationChangedV1{OrganizationID: "o", At: later})
	restored := event.New(identity.OrganizationRestored, identity.OrganizationChangedV1{OrganizationID: "o", At: later})
	erased := event.New(identity.OrganizationPermanentlyDeleted, identity.OrganizationChangedV1{OrganizationID: "o", At: later})
	erased.Unique = []event.Unique{{Kind: identity.UniqueSlug, Value: "acme", Release: true}}

	type org = *identity.Organization
	create := func(n identity.NewOrganization) func(org) ([]event.Change, error) {
		return func(o org) ([]event.Change, error) { return o.Create(n, t0) }
	}
	at := func(decide func(org, time.Time) ([]event.Change, error)) func(org) ([]event.Change, error) {
		return func(o org) ([]event.Change, error) { return decide(o, later) }
	}
	demoteOwner := func(o org) ([]event.Change, error) {
		return o.SetMember(identity.Actor{UserID: "u1", Role: identity.RoleOwner}, identity.Member{UserID: "u1", Role: identity.RoleAdmin}, t0)
	}
	tests := []struct {
		name  string
		given []event.Change
		when  func(org) ([]event.Change, error)
		then  eventtest.Then
	}{
		{name: "a reserved slug", when: create(identity.NewOrganization{ID: "o", Name: "Acme", Slug: "www"}), then: eventtest.Invalid("/slug")},
		{name: "the slug is claimed and the creator is owner", when: create(acme), then: eventtest.Events(created, owner)},
		{name: "creating twice", given: []event.Change{created, owner}, when: create(acme), then: eventtest.Conflict("organization_exists")},
		{name: "permanent delete before a soft delete", given: []event.Change{created, owner}, when: at(org.DeletePermanently),
			then: eventtest.Conflict("not_soft_deleted")},
		{name: "the last owner stays", given: []event.Change{created, owner}, when: demoteOwner, then: eventtest.Conflict("last_owner")},
		{name: "soft delete", given: []event.Change{created, owner}, when: at(org.SoftDelete), then: eventtest.Events(deleted)},
		{name: "soft delete twice", given: []event.Change{created, owner, deleted}, when: at(org.SoftDelete), then: eventtest.NoEvents()},
		{name: "restore", given: []event.Change{created, owner, deleted}, when: at(org.Restore), then: eventtest.Events(restored)},
		{name: "restore an active organization", given: []event.Change{created, owner}, when: at(org.Restore), then: eventtest.NoEvents()},
		{name: "permanent delete frees the slug", given: []event.Change{created, owner, deleted}, when: at(org.DeletePermanently),
			then: eventtest.Events(erased)},
		{name: "an erased organization is missing", given: []event.Change{created, owner, deleted, erased}, when: at(org.Restore),
			then: eventtest.NotFound()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eventtest.Given(t, identity.LoadOrganization, tt.given...).When(tt.when).Then(tt.then)
		})
	}

	o := eventtest.Given(t, identity.LoadOrganization, created, owner, deleted).Model()
	if m, ok := o.Member("u1"); !ok || m.Role != identity.RoleOwner || o.Lifecycle() != identity.StateDeleted || !o.DeletedAt().Equal(later) {
		t.Fatalf("state: member %+v, %s at %s", m, o.Lifecycle(), o.DeletedAt())
	}
	if o := eventtest.Given(t, identity.LoadOrganization, created, owner, deleted, erased).Model(); o.Visible() {
		t.Fatal("an erased organization is not visible")
	}
}

func TestAdministrationOrganizationIsNeverDeleted(t *testing.T) {
	o, _ := identity.LoadOrganization(nil)
	created, err := o.Create(identity.NewOrganization{ID: "a", Name: "Platform", Slug: "platform-admin", Administration: true, Owner: "u"}, t0)
	if err == nil && (len(created[0].Unique) != 2 || created[1].Payload.(identity.MemberV1).PlatformRole != "platform_super_admin") {
		t.Fatalf("administration org: %+v", created)
	}
	o, _ = identity.LoadOrganization(apply(t, nil, created, err))
	if _, err := o.SoftDelete(t0); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("soft delete of the administration organization: %v", err)
	}
	if _, err := o.DeletePermanently(t0); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("permanent delete of the administration organization: %v", err)
	}
}

func TestSessionTokensAndRotation(t *testing.T) {
	s, _ := identity.LoadSession(nil)
	started, err := identity.Start(identity.SessionStartedV1{SessionID: "s", UserID: "u", OrganizationID: "o", AccessHash: "a1",
		RefreshHash: "r1", AccessExpiresAt: t0.Add(15 * time.Minute), ExpiresAt: t0.Add(24 * time.Hour), StartedAt: t0})
	h := apply(t, nil, started, err)
	s, _ = identity.LoadSession(h)
	if s.CheckAccess("a1", t0) != nil || s.CheckAccess("a2", t0) == nil || s.CheckAccess("a1", t0.Add(16*time.Minute)) == nil {
		t.Fatal("access: current hash, unexpired")
	}
	refreshed, reused, err := s.Refresh("r1", identity.SessionRefreshedV1{AccessHash: "a2", RefreshHash: "r2", AccessExpiresAt: t0.Add(time.Hour)}, t0)
	if reused {
		t.Fatal("first use is no reuse")
	}
	h = apply(t, h, refreshed, err)
	s, _ = identity.LoadSession(h)
	if s.CheckAccess("a1", t0) == nil || s.CheckAccess("a2", t0) != nil {
		t.Fatal("rotation retires the old access token")
	}
	// The old refresh token presented again ends the session.
	ended, reused, err := s.Refresh("r1", identity.SessionRefreshedV1{AccessHash: "a3", RefreshHash: "r3"}, t0)
	if !reused || len(ended) != 1 || ended[0].Type != identity.SessionEnded {
		t.Fatalf("reuse: %v %+v %v", reused, ended, err)
	}
	h = apply(t, h, ended, err)
	s, _ = identity.LoadSession(h)
	if s.CheckAccess("a2", t0) == nil || s.EndReason() != identity.EndRefreshReused {
		t.Fatal("a reused refresh token ends the session")
	}
	if again, err := s.End(identity.EndLogout, t0); err != nil || len(again) != 0 {
		t.Fatal("ending twice changes nothing")
	}
}

func TestUserSessionEpoch(t *testing.T) {
	u, _ := identity.LoadUser(nil)
	created, err := u.Create(identity.NewUser{ID: "u", Email: "a@example.com", EmailHash: "h"}, t0)
	h := apply(t, nil, created, err)
	u, _ = identity.LoadUser(h)
	revoked, err := u.RevokeSessions(t0)
	h = apply(t, h, revoked, err)
	u, _ = identity.LoadUser(h)
	if u.SessionEpoch() != 1 {
		t.Fatalf("epoch %d after logout everywhere", u.SessionEpoch())
	}
	erased, err := u.DeletePermanently(t0)
	if len(erased) != 1 || !erased[0].Unique[0].Release || erased[0].Unique[0].Value != "h" {
		t.Fatalf("erasure frees the email hash: %+v", erased)
	}
	u, _ = identity.LoadUser(apply(t, h, erased, err))
	if u.Visible() || u.SealedPassword() != "" {
		t.Fatal("an erased user is gone")
	}
}

// Removing a member takes its platform role away: only a
// platform_super_admin may, not an organization admin of the
// administration organization.
func TestRemovingAPlatformRoleNeedsPlatformSuperAdmin(t *testing.T) {
	o, _ := identity.LoadOrganization(nil)
	history := eventtest.History(t, must(t)(o.Create(identity.NewOrganization{ID: "adm", Name: "Platform", Slug: "platform-adm",
		Administration: true, Owner: "root"}, testNow))...)
	o, _ = identity.LoadOrganization(history)
	root := identity.Actor{UserID: "root", Role: identity.RoleOwner, PlatformRole: identity.RolePlatformSuperAdmin}
	for _, m := range []identity.Member{{UserID: "ops", Role: identity.RoleMember, PlatformRole: identity.RolePlatformAdmin},
		{UserID: "adm1", Role: identity.RoleAdmin}} {
		changes := must(t)(o.SetMember(root, m, testNow))
		history, _ = event.Append(history, changes)
		o, _ = identity.LoadOrganization(history)
	}
	admin := identity.Actor{UserID: "adm1", Role: identity.RoleAdmin}
	if _, err := o.RemoveMember(admin, "ops", testNow); errs.KindOf(err) != errs.KindPermissionDenied {
		t.Fatalf("an admin removed a platform_admin: %v", err)
	}
	if _, err := o.RemoveMember(root, "ops", testNow); err != nil {
		t.Fatalf("the platform_super_admin removes it: %v", err)
	}
}

func must(t *testing.T) func([]event.Change, error) []event.Change {
	return func(c []event.Change, err error) []event.Change {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}
