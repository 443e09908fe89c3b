package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	dashboardmod "github.com/platform/backend/internal/modules/dashboard"
	view "github.com/platform/backend/projections/dashboard"
)

// TestRemoteWidgets: an app configured as remote (DASHBOARD_REMOTE_WIDGETS)
// is fetched as GET <service>/api/widget from its own service, here the
// platform's status service behind a proxy that can misbehave. The call
// carries the caller's credential and the active context (organization or
// personal, nothing else); a tile that names another app is refused (the
// last payload stands in: stale); a service that is down past five minutes
// shows the overview (fallback); a 403 leaves the app out
// (permission_denied) and drops its cached payload.
func TestRemoteWidgets(t *testing.T) {
	var target atomic.Value
	var mode atomic.Value // "", "foreign", "down", "forbidden"
	mode.Store("")
	type seen struct{ auth, context string }
	var mu sync.Mutex
	var calls []seen
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls = append(calls, seen{r.Header.Get("Authorization"), r.Header.Get(view.HeaderActiveContext)})
		mu.Unlock()
		switch mode.Load().(string) {
		case "foreign":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"success":true,"widgets":[{"appId":"gateway","title":"Not mine"}]}`))
			return
		case "down":
			http.Error(w, "down", http.StatusBadGateway)
			return
		case "forbidden":
			http.Error(w, `{"code":"permission_denied"}`, http.StatusForbidden)
			return
		}
		u, _ := url.Parse(target.Load().(string))
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	defer proxy.Close()
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		module.SectionOf[*dashboardmod.Config](c.Modules).RemoteWidgets = map[string]string{"status": proxy.URL}
	}})
	target.Store(h.URLs["status"])
	l := apptest.Provided[*view.Launcher](h)
	clock := &testClock{now: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
	l.SetClock(clock.Now)
	t0 := clock.Now()
	owner := signUp(t, h)
	install(t, h, owner.Token, "status", "organization", http.StatusOK)
	install(t, h, owner.Token, "status", "personal", http.StatusOK)
	load := func(at time.Duration, context string) (batch, []seen) {
		t.Helper()
		clock.Set(t0.Add(at))
		mu.Lock()
		calls = nil
		mu.Unlock()
		res := h.Do(t, "dashboard", http.MethodPost, "/api/widgets", owner.Token, map[string]any{"context": context})
		apptest.Must(t, res, http.StatusOK, "widgets")
		var b batch
		res.JSON(t, &b)
		mu.Lock()
		defer mu.Unlock()
		return b, append([]seen(nil), calls...)
	}
	reason := func(b batch) string {
		for _, a := range b.Apps {
			if a.AppID == "status" {
				return a.Reason
			}
		}
		return ""
	}

	b, got := load(0, "organization")
	if b.states()["status"] != "fresh" || len(b.Widgets) != 1 || len(got) != 1 ||
		got[0].auth != "Bearer "+owner.Token || got[0].context != "organization" {
		t.Fatalf("organization: %v %s; the service saw %+v", b.states(), b.Widgets, got)
	}
	b, got = load(0, "personal")
	if b.states()["status"] != "fresh" || len(got) != 1 || got[0].context != "personal" {
		t.Fatalf("personal: %v; the service saw %+v", b.states(), got)
	}
	if b, got = load(44*time.Second, "organization"); b.states()["status"] != "cached" || len(got) != 0 {
		t.Fatalf("44 s later: %v, %d calls", b.states(), len(got))
	}

	mode.Store("foreign")
	if b, _ = load(45*time.Second, "organization"); b.states()["status"] != "stale" || reason(b) != "error" || b.age("status") != 45 {
		t.Fatalf("a tile of another app: %v (%s), age %d", b.states(), reason(b), b.age("status"))
	}
	mode.Store("down")
	if b, _ = load(5*time.Minute, "organization"); b.states()["status"] != "fallback" || reason(b) != "unavailable" {
		t.Fatalf("down for five minutes: %v (%s)", b.states(), reason(b))
	}

	mode.Store("")
	if b, _ = load(5*time.Minute, "organization"); b.states()["status"] != "fresh" {
		t.Fatalf("back: %v", b.states())
	}
	mode.Store("forbidden")
	b, _ = load(5*time.Minute+46*time.Second, "organization")
	if len(b.Apps) != 0 || len(b.Omitted) != 1 || b.Omitted[0].AppID != "status" || b.Omitted[0].Reason != "permission_denied" {
		t.Fatalf("refused: apps %v, omitted %+v", b.states(), b.Omitted)
	}
	// The refusal dropped the payload: failing next, nothing stale is shown.
	mode.Store("down")
	if b, _ = load(5*time.Minute+47*time.Second, "organization"); b.states()["status"] != "fallback" {
		t.Fatalf("after a refusal, a failure shows %v", b.states())
	}
}
