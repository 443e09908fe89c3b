package app_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/module"
	identitymod "github.com/platform/backend/internal/modules/identity"
)

// TestScheduledMaintenanceRunsBesideDispatcher: in one process, the
// notification dispatcher leads and the scheduled privacy maintenance runs
// too. Both once used the same advisory lock number; the dispatcher took it
// at start and kept it, so maintenance never ran in a deployment.
func TestScheduledMaintenanceRunsBesideDispatcher(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		module.SectionOf[*identitymod.Config](c.Modules).PrivacyInterval = 200 * time.Millisecond
	}})
	ctx := context.Background()
	pool := h.App.Pool

	// An audit record past the 365-day retention: only maintenance removes it.
	if _, err := pool.Exec(ctx, `INSERT INTO history_events_g1 (event_id, organization_id, stream_type, stream_id,
		stream_version, event_type, schema_version, actor_id, actor_type, occurred_at, recorded_at, correlation_id,
		causation_id, idempotency_key, payload) VALUES (gen_random_uuid(), $1, 'organization', $1, 1, 'test.expired', 1,
		'test', 'system', now() - interval '400 days', now() - interval '400 days', '', '', '', '{}')`, h.OrgID); err != nil {
		t.Fatal(err)
	}
	expired := func() int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM history_events_g1 WHERE event_type = 'test.expired'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if expired() != 1 {
		t.Fatal("the expired audit record was not written")
	}

	// The dispatcher runs: an incident's notification leaves the delivery log.
	res := h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "API errors", "message": "Investigating", "severity": "major"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create incident: %d %s", res.Status, res.Body)
	}
	apptest.Eventually(t, 30*time.Second, "the dispatcher to publish the incident's notification", func() bool {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM notification_states WHERE organization_id = $1
			AND state NOT IN ('pending', 'invalid')`, h.OrgID).Scan(&n)
		return err == nil && n > 0
	})

	// And the scheduled maintenance runs in the same process.
	apptest.Eventually(t, 15*time.Second, "scheduled privacy maintenance to purge the expired audit record", func() bool {
		return expired() == 0
	})

	// Each leader holds its own lock, on a connection of its own.
	for _, l := range []leader.Lock{leader.Relay, leader.Dispatcher, identitycmd.PrivacyMaintenanceLock} {
		var holders int
		if err := pool.QueryRow(ctx, `SELECT count(DISTINCT pid) FROM pg_locks WHERE locktype = 'advisory'
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid = $1 AND objid = $2 AND objsubid = 2 AND granted`, leader.Namespace, l.Key()).Scan(&holders); err != nil {
			t.Fatal(err)
		}
		if holders != 1 {
			t.Errorf("%s: held by %d connections, want 1", l, holders)
		}
	}
}
