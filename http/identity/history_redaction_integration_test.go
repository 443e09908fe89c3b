package identity_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections/history"
)

// TestHistoryRedactsSessionHashes: the audit view (GET /api/history, any
// holder of history:read) never shows the access and refresh hashes of
// session.started and session.refreshed: not as projected, not from rows
// recorded before the declaration (they are dropped from the answer), and not
// after a rebuild of the history projection from the log.
func TestHistoryRedactsSessionHashes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	a := iatRegister(t, h, "audit")
	res := h.Do(t, "identity", http.MethodPost, "/refresh", "-", map[string]any{"refreshToken": a.Refresh, "returnRefreshToken": true})
	apptest.Must(t, res, http.StatusOK, "refresh")
	var s iatSession
	res.JSON(t, &s)

	types := []string{"identity.session.started", "identity.session.refreshed"}
	audit := func(what string) string {
		t.Helper()
		var body string
		apptest.Eventually(t, 30*time.Second, what, func() bool {
			body = ""
			for _, typ := range types {
				res := h.Do(t, "ops", http.MethodGet, "/api/history?type="+typ, s.AccessToken, nil)
				apptest.Must(t, res, http.StatusOK, "history "+typ)
				if !strings.Contains(string(res.Body), `"session_id"`) {
					return false
				}
				body += string(res.Body)
			}
			return true
		})
		return body
	}
	checkClean := func(body, when string) {
		t.Helper()
		for _, m := range []string{"access_hash", "refresh_hash"} {
			if strings.Contains(body, m) {
				t.Fatalf("%s: the audit view shows %s: %s", when, m, body)
			}
		}
	}
	table := func() string {
		t.Helper()
		sql, err := h.App.Reader.SQL(ctx, history.Projection{}, `{{history_events}}`)
		if err != nil {
			t.Fatal(err)
		}
		return sql
	}
	hashedRows := func() int64 {
		return h.Count(t, `SELECT count(*) FROM `+table()+` WHERE organization_id=$1 AND (payload::jsonb ? 'access_hash' OR payload::jsonb ? 'refresh_hash')`, a.OrgID)
	}

	checkClean(audit("the session events in the audit view"), "live")
	if n := hashedRows(); n != 0 {
		t.Fatalf("%d audit rows hold session hashes", n)
	}

	// A row recorded before the declaration existed still answers without them.
	if _, err := h.App.Pool.Exec(ctx, `UPDATE `+table()+` SET payload = payload::jsonb || '{"access_hash":"old","refresh_hash":"old"}'
		WHERE organization_id=$1 AND event_type=$2`, a.OrgID, types[0]); err != nil {
		t.Fatal(err)
	}
	checkClean(audit("the session events after planting old hashes"), "old rows")

	// A rebuild from the log redacts too.
	apptest.Must(t, h.Do(t, "ops", http.MethodPost, "/api/projections/history/replay", h.OperatorKey(t), nil), http.StatusAccepted, "replay history")
	apptest.Eventually(t, 60*time.Second, "generation 2 of history to become active", func() bool {
		return h.Count(t, `SELECT count(*) FROM proj_generations WHERE projection='history' AND generation=2 AND state='active'`) == 1
	})
	if !strings.HasSuffix(table(), "_g2") {
		t.Fatalf("active history table %s, want generation 2", table())
	}
	checkClean(audit("the session events in the rebuilt audit view"), "rebuilt")
	if n := hashedRows(); n != 0 {
		t.Fatalf("%d rebuilt audit rows hold session hashes", n)
	}
}
