package dashboard_test

import (
	"testing"
	"time"

	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

var t0 = time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)

func TestInstallAndUninstall(t *testing.T) {
	catalog := []string{"status", "gateway"}
	org := domain.Context{Kind: domain.ContextOrganization, OrganizationID: "o1"}
	i, _ := domain.LoadInstallations(nil)
	changes, got, err := i.Install(org, "status", catalog, t0)
	if err != nil || len(changes) != 1 || changes[0].Type != domain.AppInstalled || !got.Installed {
		t.Fatalf("install: %v %+v %v", changes, got, err)
	}
	history, _ := event.Append(nil, changes)
	i, _ = domain.LoadInstallations(history)
	if again, got, _ := i.Install(org, "status", catalog, t0.Add(time.Hour)); len(again) != 0 || !got.InstalledAt.Equal(t0) {
		t.Fatalf("installing twice appended %v, answered %+v", again, got)
	}
	if _, _, err := i.Install(org, "nope", catalog, t0); errs.KindOf(err) != errs.KindNotFound {
		t.Fatalf("an app outside the catalog: %v", err)
	}
	if none, got, err := i.Uninstall(org, "gateway", catalog, t0); len(none) != 0 || got.Installed || err != nil {
		t.Fatalf("uninstalling an app not installed: %v %+v %v", none, got, err)
	}
	changes, got, _ = i.Uninstall(org, "status", nil, t0) // gone from the catalog: can still be taken off
	if len(changes) != 1 || changes[0].Type != domain.AppUninstalled || got.Installed {
		t.Fatalf("uninstall: %v %+v", changes, got)
	}
	history, _ = event.Append(history, changes)
	if i, _ = domain.LoadInstallations(history); i.Installed("status") {
		t.Fatal("still installed after uninstall")
	}
}

func TestContextOf(t *testing.T) {
	user := principal.Principal{ID: "s1", Type: "user", UserID: "u1", OrganizationID: "o1"}
	key := principal.Principal{ID: "k1", Type: "api_key", ActsAs: "u2", OrganizationID: "o1"}
	system := principal.Principal{ID: "k2", Type: "api_key", OrganizationID: "o1"}
	cases := []struct {
		p       principal.Principal
		kind    string
		stream  string
		invalid bool
	}{
		{user, "", "organization:o1", false},
		{user, "organization", "organization:o1", false},
		{user, "personal", "personal:o1:u1", false},
		{key, "personal", "personal:o1:u2", false},
		{system, "personal", "", true},
		{user, "platform", "", true},
	}
	for _, c := range cases {
		got, err := domain.ContextOf(c.p, c.kind)
		if c.invalid != (errs.KindOf(err) == errs.KindInvalidInput) || !c.invalid && got.StreamID() != c.stream {
			t.Errorf("%s %q: %+v %v", c.p.ID, c.kind, got, err)
		}
	}
}

// TestCacheEdges: cached strictly below 45 s, stale strictly below five
// minutes (time passed in).
func TestCacheEdges(t *testing.T) {
	cases := []struct {
		age        time.Duration
		cached     bool
		failedWith string
	}{
		{0, true, domain.StateStale},
		{domain.FreshFor - time.Millisecond, true, domain.StateStale},
		{domain.FreshFor, false, domain.StateStale},
		{domain.StaleFor - time.Millisecond, false, domain.StateStale},
		{domain.StaleFor, false, domain.StateFallback},
	}
	for _, c := range cases {
		now := t0.Add(c.age)
		if got := domain.Cached(t0, now); got != c.cached {
			t.Errorf("age %s: cached %v", c.age, got)
		}
		if got := domain.AfterFetch(false, true, t0, now); got != c.failedWith {
			t.Errorf("age %s: a failed fetch serves %s, want %s", c.age, got, c.failedWith)
		}
		if got := domain.AfterFetch(true, true, t0, now); got != domain.StateFresh {
			t.Errorf("age %s: a good fetch is %s", c.age, got)
		}
	}
	if got := domain.AfterFetch(false, false, time.Time{}, t0); got != domain.StateFallback {
		t.Errorf("no payload, failed fetch: %s", got)
	}
}
