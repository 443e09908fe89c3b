package gateway_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/internal/apptest"
)

// TestConnectionExpiry: gateway.provider.connection_expiring once per
// connection and expiry: at once for a token already inside the seven-day
// window, from the daily scan (run here with a moved clock) for one that
// enters it later, again for a moved expiry, never for a disconnected
// connection or a clock moved back; the scan is a durable timer that runs
// at start and schedules the next run a day on.
func TestConnectionExpiry(t *testing.T) {
	h := startEdge(t, edgeOptions{})
	edge := apptest.Provided[*gatewaycmd.Edge](h)
	now := time.Now().UTC().Truncate(time.Second)
	connect := func(name string, expires time.Time) string {
		id, _ := createConnection(t, h, "", map[string]any{"provider": "payments_provider_a", "name": name,
			"token_expires_at": expires.Format(time.RFC3339), "credentials": map[string]any{"secret_key": "sk_test_expiry"}})
		return id
	}
	later := connect("later", now.Add(30*24*time.Hour))
	soon := connect("soon", now.Add(3*24*time.Hour))
	gone := connect("gone", now.Add(10*24*time.Hour))
	apptest.Must(t, post(t, h, "/api/connections/"+gone+"/disconnect", "", map[string]any{}), http.StatusOK, "disconnect")
	if eventsOf(t, h, "connection:"+soon, "gateway.connection.expiring") != 1 || eventsOf(t, h, "connection:"+later, "gateway.connection.expiring") != 0 {
		t.Fatal("a token already inside the window is warned at create, one outside is not")
	}
	scan := func(at time.Time, want int) {
		t.Helper()
		n, more, err := edge.ScanExpiring(context.Background(), at)
		if err != nil || more || n != want {
			t.Fatalf("scan at %s warned %d (more %v): %v; want %d", at, n, more, err, want)
		}
	}
	scan(now, 0)                      // nothing new: soon was warned at create
	scan(now.Add(-24*time.Hour), 0)   // a clock moved back
	scan(now.Add(22*24*time.Hour), 0) // 8 days before later's expiry: outside the window
	scan(now.Add(24*24*time.Hour), 1) // 6 days before: later enters the window
	scan(now.Add(25*24*time.Hour), 0) // once per expiry
	// A moved expiry is warned again when it enters the window.
	apptest.Must(t, patch(t, h, "/api/connections/"+later, "", map[string]any{"token_expires_at": now.Add(60 * 24 * time.Hour).Format(time.RFC3339)}),
		http.StatusOK, "move the expiry")
	scan(now.Add(25*24*time.Hour), 0)
	scan(now.Add(54*24*time.Hour), 1)
	// Moved into the window: warned at once by the update.
	apptest.Must(t, patch(t, h, "/api/connections/"+later, "", map[string]any{"token_expires_at": now.Add(2 * 24 * time.Hour).Format(time.RFC3339)}),
		http.StatusOK, "move the expiry into the window")
	if n := eventsOf(t, h, "connection:"+later, "gateway.connection.expiring"); n != 3 {
		t.Fatalf("%d warnings of later, want 3 (one per expiry)", n)
	}
	if n := eventsOf(t, h, "connection:"+gone, "gateway.connection.expiring"); n != 0 {
		t.Fatal("a disconnected connection was warned")
	}
	got := h.Notifications(t, h.OrgID, "gateway.provider.connection_expiring", 4)
	if len(got) != 4 {
		t.Fatalf("%d notifications, want 4", len(got))
	}
	want := "gateway:connection-expiring:" + soon + ":" + strconv.FormatInt(now.Add(3*24*time.Hour).UnixMicro(), 10)
	if data, ok := got[want]; !ok || data["connection_id"] != soon || data["provider"] != "payments_provider_a" {
		t.Fatalf("no %s in %v", want, got)
	}
	// The scan's own timer: it ran at start and waits a day for the next run.
	apptest.Eventually(t, 20*time.Second, "the scan ran at start", func() bool {
		return h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.expiry_scan.completed'`) >= 1
	})
	if n := h.Count(t, `SELECT count(*) FROM es_timers WHERE stream_id = 'gateway-expiry-scan' AND state = 'pending'
		AND due_at BETWEEN now() + interval '23 hours' AND now() + interval '25 hours'`); n != 1 {
		t.Fatalf("%d pending scans a day on, want 1", n)
	}
	noInvalidNotifications(t, h)
}
