package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	dashboardhttp "github.com/platform/backend/http/dashboard"
	"github.com/platform/backend/internal/apptest"
	view "github.com/platform/backend/projections/dashboard"
)

// member adds a user with role to the owner's organization and signs them
// in: their session, and a key they minted (it acts as them).
func member(t *testing.T, h *apptest.Harness, org, role string) (userID, session, key string) {
	p := h.NewPerson(t, org, role)
	return p.UserID, p.Session, p.Key
}

// TestMembershipChangeSeenAtOnce: the widget cache never answers by
// itself. A member's payloads are cached (a second call within 45 s is
// served from the cache); demoted to guest, the member can no longer
// install (403) on the very next call; removed from the organization,
// their session and their key are refused at once (401), by the API and by
// the pages, although their cached payloads are still within 45 s (the
// launcher's clock does not move).
func TestMembershipChangeSeenAtOnce(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	l := apptest.Provided[*view.Launcher](h)
	clock := &testClock{now: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
	l.SetClock(clock.Now)
	owner := signUp(t, h, "gateway")
	for _, app := range []string{"status", "gateway"} {
		install(t, h, owner.Token, app, "organization", http.StatusOK)
	}
	userID, session, key := member(t, h, owner.OrgID, "admin")
	widgets := func(token string) batch {
		t.Helper()
		res := h.Do(t, "dashboard", http.MethodPost, "/api/widgets", token, map[string]any{})
		apptest.Must(t, res, http.StatusOK, "widgets")
		var b batch
		res.JSON(t, &b)
		return b
	}
	if b := widgets(session); !mapsEqual(b.states(), map[string]string{"status": "fresh", "gateway": "fresh"}) {
		t.Fatalf("the member's first answer: %v", b.states())
	}
	clock.Set(clock.Now().Add(10 * time.Second))
	if b := widgets(key); !mapsEqual(b.states(), map[string]string{"status": "cached", "gateway": "cached"}) {
		t.Fatalf("the member's key, 10 s later: %v (the person's payloads are cached)", b.states())
	}
	install(t, h, session, "agent", "organization", http.StatusOK)

	// Demoted: the next call holds the guest's permissions.
	res := h.Do(t, "identity", http.MethodPut, "/api/organizations/"+owner.OrgID+"/members/"+userID, owner.Token, map[string]any{"role": "guest"})
	apptest.Must(t, res, http.StatusOK, "demote")
	for _, token := range []string{session, key} {
		apptest.ExpectProblem(t, h.Do(t, "dashboard", http.MethodPut, "/api/apps/design/installation", token, map[string]any{}),
			http.StatusForbidden, "permission_denied")
	}
	if b := widgets(session); b.states()["status"] != "cached" {
		t.Fatalf("the guest reads the status tile from the cache: %v", b.states())
	}

	// Removed: nothing is served, the cache notwithstanding.
	res = h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+owner.OrgID+"/members/"+userID, owner.Token, nil)
	apptest.Must(t, res, http.StatusOK, "remove")
	for _, token := range []string{session, key} {
		apptest.ExpectProblem(t, h.Do(t, "dashboard", http.MethodPost, "/api/widgets", token, map[string]any{}),
			http.StatusUnauthorized, "authentication_required")
	}
	v := newVisitor(t, h.URLs["dashboard"])
	u, _ := url.Parse(v.base)
	v.jar.SetCookies(u, []*http.Cookie{{Name: dashboardhttp.CookieSession, Value: session, Path: "/"}})
	if p := v.get("/dashboard"); p.Status != http.StatusSeeOther || p.Location != "/login?next=%2Fdashboard" {
		t.Fatalf("the removed member's /dashboard answered %d to %q:\n%s", p.Status, p.Location, p.Body)
	}
	// The owner's own view is untouched.
	if b := widgets(owner.Token); len(b.Apps) != 3 {
		t.Fatalf("the owner's widgets: %v", b.states())
	}
}
