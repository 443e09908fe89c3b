package identity_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// Helpers of this file are prefixed lct (lifecycle test).

func lctDelete(t *testing.T, h *apptest.Harness, token, userID string, permanent bool) apptest.Response {
	t.Helper()
	path := "/api/users/" + userID
	if permanent {
		path += "/permanent?confirm=true"
	}
	return h.Do(t, "identity", http.MethodDelete, path, token, nil)
}

// lctSetRole changes a membership; 404 means the write side holds none.
func lctSetRole(t *testing.T, h *apptest.Harness, token, orgID, userID, role string) apptest.Response {
	t.Helper()
	return h.Do(t, "identity", http.MethodPut, "/api/organizations/"+orgID+"/members/"+userID, token, map[string]any{"role": role})
}

// lctRemovals counts member_removed events of a user on an organization's stream.
func lctRemovals(t *testing.T, h *apptest.Harness, orgID, userID string) int64 {
	t.Helper()
	return h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type=$2 AND payload->>'user_id'=$3`,
		orgID, domain.MemberRemoved, userID)
}

// lctCreateOrganization: a signed-in user founds an organization (its sole
// owner); the accounts read model lists the membership afterwards.
func lctCreateOrganization(t *testing.T, h *apptest.Harness, token, prefix string) string {
	t.Helper()
	res := h.Do(t, "identity", http.MethodPost, "/api/organizations", token, map[string]any{"name": "Org " + prefix, "slug": iatSlug(prefix)})
	apptest.Must(t, res, http.StatusCreated, "create organization "+prefix)
	iatSettle(t, h, res)
	var o struct {
		OrganizationID string `json:"organization_id"`
	}
	res.JSON(t, &o)
	return o.OrganizationID
}

func lctSession(t *testing.T, res apptest.Response, what string) iatSession {
	t.Helper()
	apptest.Must(t, res, http.StatusOK, what)
	var s iatSession
	res.JSON(t, &s)
	return s
}

// TestLifecycleLastOwnerAndErasure: U (home A) is the sole owner of B.
// Nobody deletes or erases U until B has another owner; A's admin acts on
// a user only while it is a member of A; erasure ends U's memberships on
// the organizations' streams, once, and a repeated erasure finishes an
// interrupted one.
func TestLifecycleLastOwnerAndErasure(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	a := iatRegister(t, h, "home")
	_, adEmail, adPassword := iatCreateUser(t, h, a.Access, "admin")
	uID, uEmail, uPassword := iatCreateUser(t, h, a.Access, "member")
	ad := iatLoginEventually(t, h, adEmail, adPassword)
	u := iatLoginEventually(t, h, uEmail, uPassword)
	b := lctCreateOrganization(t, h, u.AccessToken, "sole")

	t.Run("the last owner of an organization is neither deleted nor erased", func(t *testing.T) {
		for who, token := range map[string]string{"home admin": ad.AccessToken, "home owner": a.Access, "the user itself": u.AccessToken} {
			p := apptest.ExpectProblem(t, lctDelete(t, h, token, uID, true), http.StatusConflict, "last_owner")
			if !strings.Contains(p.Detail, "transfer its ownership") || !strings.Contains(p.Detail, "delete the organization") {
				t.Fatalf("%s: the problem must say what to do first: %q", who, p.Detail)
			}
			apptest.ExpectProblem(t, lctDelete(t, h, token, uID, false), http.StatusConflict, "last_owner")
		}
		// A platform role is refused the same way.
		system := commands.Meta{Actor: eventstore.Actor{ID: "test", Type: "system"}}
		rootEmail, rootPassword := iatEmail("root"), "platform root password"
		if _, err := h.Identity().Bootstrap(ctx, system, identitycmd.Bootstrap{OrganizationName: "Platform",
			Slug: iatSlug("platform"), Email: rootEmail, Password: rootPassword, Administration: true}); err != nil {
			t.Fatal(err)
		}
		root := iatLoginEventually(t, h, rootEmail, rootPassword)
		apptest.ExpectProblem(t, lctDelete(t, h, root.AccessToken, uID, true), http.StatusConflict, "last_owner")
		apptest.ExpectProblem(t, lctDelete(t, h, root.AccessToken, uID, false), http.StatusConflict, "last_owner")
		if status, p := iatValidate(t, h, u.AccessToken); status != http.StatusOK || p.UserID != uID {
			t.Fatalf("the refused user must be untouched: %d %+v", status, p)
		}
	})

	t.Run("a home admin acts only on members of the home organization", func(t *testing.T) {
		vID, _, _ := iatCreateUser(t, h, a.Access, "member")
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+a.OrgID+"/members/"+vID, a.Access, nil), http.StatusOK, "remove v from a")
		for _, token := range []string{ad.AccessToken, a.Access} {
			apptest.ExpectProblem(t, lctDelete(t, h, token, vID, true), http.StatusForbidden, "permission_denied")
			apptest.ExpectProblem(t, lctDelete(t, h, token, vID, false), http.StatusForbidden, "permission_denied")
			apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/users/"+vID+"/restore", token, nil), http.StatusForbidden, "permission_denied")
		}
		if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type IN ($2,$3)`,
			vID, domain.UserDeleted, domain.UserPermanentlyDeleted); n != 0 {
			t.Fatalf("%d lifecycle events on the departed user's stream", n)
		}
	})

	t.Run("erasure ends every membership on the organizations' streams", func(t *testing.T) {
		ub := lctSession(t, iatLogin(t, h, uEmail, uPassword, map[string]any{"organizationId": b}), "u signs in to b")
		wID, wEmail, wPassword := iatCreateUser(t, h, ub.AccessToken, "owner") // b gets a second owner
		w := iatLoginEventually(t, h, wEmail, wPassword)
		res := lctDelete(t, h, ad.AccessToken, uID, true)
		apptest.Must(t, res, http.StatusOK, "erase u")
		if !strings.Contains(string(res.Body), `"state":"erased"`) {
			t.Fatalf("erasure answer: %s", res.Body)
		}
		// The write side holds no membership of u: a role change is 404.
		apptest.ExpectProblem(t, lctSetRole(t, h, w.AccessToken, b, uID, "admin"), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, lctSetRole(t, h, a.Access, a.OrgID, uID, "admin"), http.StatusNotFound, "not_found")
		for _, org := range []string{a.OrgID, b} {
			if n := lctRemovals(t, h, org, uID); n != 1 {
				t.Fatalf("%d member_removed events of u on %s, want 1", n, org)
			}
			if n := h.Count(t, `SELECT count(*) FROM es_idempotency WHERE scope=$1 AND key=$2`, org, "erasure:member_removed:"+uID); n != 1 {
				t.Fatalf("the removal on %s has %d idempotency records, want 1", org, n)
			}
		}
		// b keeps its other owner; u is gone.
		if status, p := iatValidate(t, h, w.AccessToken); status != http.StatusOK || p.Role != "owner" || p.OrganizationID != b || p.UserID != wID {
			t.Fatalf("b's remaining owner: %d %+v", status, p)
		}
		apptest.ExpectProblem(t, lctDelete(t, h, ad.AccessToken, uID, true), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, iatLogin(t, h, uEmail, uPassword, nil), http.StatusUnauthorized, "authentication_required")
		if lctRemovals(t, h, b, uID) != 1 || lctRemovals(t, h, a.OrgID, uID) != 1 {
			t.Fatal("a repeated erasure appended removals again")
		}
	})

	t.Run("repeating an interrupted erasure finishes it", func(t *testing.T) {
		xID, _, _ := iatCreateUser(t, h, a.Access, "member")
		// As if the process stopped right after the user's erasure event.
		m := commands.Meta{OrganizationID: a.OrgID, Actor: eventstore.Actor{ID: "test", Type: "system"}}
		if _, err := commands.Run(ctx, h.App.Store, m, domain.StreamUser, xID, func(history []event.Recorded) ([]event.Change, struct{}, error) {
			x, err := domain.LoadUser(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			changes, err := x.DeletePermanently(time.Now())
			return changes, struct{}{}, err
		}); err != nil {
			t.Fatal(err)
		}
		res := lctDelete(t, h, ad.AccessToken, xID, true)
		apptest.Must(t, res, http.StatusOK, "finish the erasure")
		if !strings.Contains(string(res.Body), `"state":"erased"`) || res.Header.Get("X-Platform-Position") == "" {
			t.Fatalf("finished erasure: %s %v", res.Body, res.Header)
		}
		apptest.ExpectProblem(t, lctSetRole(t, h, a.Access, a.OrgID, xID, "admin"), http.StatusNotFound, "not_found")
		if n := h.Count(t, `SELECT count(*) FROM identity_data_keys WHERE subject_id=$1 AND data_key IS NOT NULL`, xID); n != 0 {
			t.Fatal("the finished erasure left the data key")
		}
		apptest.ExpectProblem(t, lctDelete(t, h, ad.AccessToken, xID, true), http.StatusNotFound, "not_found")
		if n := lctRemovals(t, h, a.OrgID, xID); n != 1 {
			t.Fatalf("%d member_removed events, want 1", n)
		}
	})
}

// TestLifecycleOwnerSignsInToSoftDeletedOrganization: an owner asking for
// its soft-deleted organization by id gets a session limited to reading,
// restoring and deleting it; a default sign-in skips it; other roles and
// erased organizations stay closed.
func TestLifecycleOwnerSignsInToSoftDeletedOrganization(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := iatRegister(t, h, "sleeper")
	_, adEmail, adPassword := iatCreateUser(t, h, a.Access, "admin")
	iatLoginEventually(t, h, adEmail, adPassword)
	iatLoginEventually(t, h, a.Email, a.Password)
	second := lctCreateOrganization(t, h, a.Access, "awake")
	org := "/api/organizations/" + a.OrgID
	deleted := h.Do(t, "identity", http.MethodDelete, org, a.Access, nil)
	apptest.Must(t, deleted, http.StatusOK, "soft delete")

	if s := lctSession(t, iatLogin(t, h, a.Email, a.Password, nil), "default sign-in"); s.OrganizationID != second {
		t.Fatalf("default sign-in went to %s, want the active organization %s", s.OrganizationID, second)
	}
	s := lctSession(t, iatLogin(t, h, a.Email, a.Password, map[string]any{"organizationId": a.OrgID}), "owner signs in to the deleted organization")
	if s.OrganizationID != a.OrgID || s.Role != "owner" {
		t.Fatalf("session: %+v", s)
	}
	status, p := iatValidate(t, h, s.AccessToken)
	want := slices.Clone(domain.OwnerOfDeletedPermissions)
	slices.Sort(want)
	slices.Sort(p.Permissions)
	if status != http.StatusOK || !slices.Equal(p.Permissions, want) {
		t.Fatalf("the session in a deleted organization: %d %+v", status, p)
	}
	got := h.Do(t, "identity", http.MethodGet, org, s.AccessToken, nil, "X-Platform-Min-Position", deleted.Header.Get("X-Platform-Position"))
	apptest.Must(t, got, http.StatusOK, "read the deleted organization")
	if !strings.Contains(string(got.Body), `"state":"deleted"`) {
		t.Fatalf("organization: %s", got.Body)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/users", s.AccessToken, map[string]any{"email": iatEmail("no"), "role": "member"}),
		http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, iatLogin(t, h, adEmail, adPassword, map[string]any{"organizationId": a.OrgID}), http.StatusForbidden, "permission_denied")

	restored := h.Do(t, "identity", http.MethodPost, org+"/restore", s.AccessToken, nil)
	apptest.Must(t, restored, http.StatusOK, "the owner restores it")
	if !strings.Contains(string(restored.Body), `"state":"active"`) {
		t.Fatalf("restore: %s", restored.Body)
	}
	if _, p := iatValidate(t, h, s.AccessToken); !contains(p.Permissions, "app_platform_auth.users:manage") {
		t.Fatalf("after restore the owner's full bundle applies: %+v", p)
	}
	apptest.Must(t, iatLogin(t, h, adEmail, adPassword, map[string]any{"organizationId": a.OrgID}), http.StatusOK, "the admin after restore")

	// Erased organizations stay closed.
	apptest.Must(t, h.Do(t, "identity", http.MethodDelete, org, s.AccessToken, nil), http.StatusOK, "soft delete again")
	apptest.Must(t, h.Do(t, "identity", http.MethodDelete, org+"/permanent?confirm=true", s.AccessToken, nil), http.StatusOK, "erase the organization")
	apptest.ExpectProblem(t, iatLogin(t, h, a.Email, a.Password, map[string]any{"organizationId": a.OrgID}), http.StatusForbidden, "permission_denied")
}

// TestLifecycleRoleChangesUseTheCurrentActorRole: an actor resolved before
// a concurrent demotion acts with its current role, which the membership
// commands read under the organization stream's lock.
func TestLifecycleRoleChangesUseTheCurrentActorRole(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	a := iatRegister(t, h, "ladder")
	adID, adEmail, adPassword := iatCreateUser(t, h, a.Access, "admin")
	xID, _, _ := iatCreateUser(t, h, a.Access, "member")
	ad := iatLoginEventually(t, h, adEmail, adPassword)
	p, err := h.Identity().Validate(ctx, ad.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := h.Identity().ActorIn(ctx, p, a.OrgID)
	if err != nil || stale.Role != domain.RoleAdmin {
		t.Fatalf("actor: %+v %v", stale, err)
	}
	apptest.Must(t, lctSetRole(t, h, a.Access, a.OrgID, adID, "member"), http.StatusOK, "demote the admin")

	m := commands.Meta{OrganizationID: a.OrgID, Actor: eventstore.Actor{ID: adID, Type: "user"}}
	_, err = h.Identity().ChangeMemberRole(ctx, m, stale, identitycmd.SetMember{OrganizationID: a.OrgID, UserID: xID, Role: "admin"})
	if errs.KindOf(err) != errs.KindPermissionDenied {
		t.Fatalf("promotion by a demoted admin: %v", err)
	}
	if _, err := h.Identity().RemoveMember(ctx, m, stale, a.OrgID, xID); errs.KindOf(err) != errs.KindPermissionDenied {
		t.Fatalf("removal by a demoted admin: %v", err)
	}
	email := iatEmail("stale")
	if _, err := h.Identity().CreateUser(ctx, m, stale, identitycmd.CreateUser{Email: email, Role: "member"}); errs.KindOf(err) != errs.KindPermissionDenied {
		t.Fatalf("user creation by a demoted admin: %v", err)
	}
	// The refused creation left nothing behind: the email is free.
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/api/users", a.Access, map[string]any{"email": email, "role": "member"}), http.StatusAccepted, "reuse the email")
	apptest.Must(t, lctSetRole(t, h, a.Access, a.OrgID, xID, "member"), http.StatusOK, "x is still a member")
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type IN ($2,$3) AND payload->>'user_id'=$4`,
		a.OrgID, domain.MemberRoleChanged, domain.MemberRemoved, xID); n != 0 {
		t.Fatalf("%d changes of x's membership", n)
	}
}

// TestLifecycleAPIKeysAdministerOnlyWithUsersManage: a key is an admin of
// its organization only while its permissions hold users:manage, and even
// then never outranks an owner or super_admin.
func TestLifecycleAPIKeysAdministerOnlyWithUsersManage(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	a := iatRegister(t, h, "keys")
	supID, _, _ := iatCreateUser(t, h, a.Access, "super_admin")
	memID, _, _ := iatCreateUser(t, h, a.Access, "member")
	_, manage := accKey(t, h, a.OrgID, "users:manage", "users:read")
	_, readOnly := accKey(t, h, a.OrgID, "users:read")

	for _, tc := range []struct {
		token string
		role  string
	}{{readOnly, ""}, {manage, domain.RoleAdmin}} {
		p, err := h.Identity().Validate(ctx, tc.token)
		if err != nil {
			t.Fatal(err)
		}
		actor, err := h.Identity().ActorIn(ctx, p, a.OrgID)
		if err != nil || actor.Role != tc.role {
			t.Fatalf("key with %v: actor %+v %v, want role %q", p.Scopes, actor, err, tc.role)
		}
	}
	apptest.ExpectProblem(t, lctDelete(t, h, readOnly, memID, false), http.StatusForbidden, "permission_denied")
	for _, permanent := range []bool{false, true} {
		apptest.ExpectProblem(t, lctDelete(t, h, manage, supID, permanent), http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, lctDelete(t, h, manage, a.UserID, permanent), http.StatusForbidden, "permission_denied")
	}
	apptest.ExpectProblem(t, lctSetRole(t, h, manage, a.OrgID, memID, "owner"), http.StatusForbidden, "permission_denied")
	apptest.Must(t, lctDelete(t, h, manage, memID, false), http.StatusOK, "the key deletes a member")
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/api/users/"+memID+"/restore", manage, nil), http.StatusOK, "and restores it")
}
