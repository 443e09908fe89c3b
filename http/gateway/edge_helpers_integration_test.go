package gateway_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/internal/module"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
)

// edgeOptions tune an edge test's platform.
type edgeOptions struct {
	gateway func(*gatewaymod.Config)
	ring    keyring.Ring // the platform's key ring (zero: the sandbox's)
	logs    *apptest.LogSink
}

// startEdge runs a platform for the edge's tests: the sandbox on, short
// relay backoffs, and whatever the test adjusts.
func startEdge(t *testing.T, o edgeOptions) *apptest.Harness {
	t.Helper()
	return apptest.Start(t, apptest.Options{LogTo: writer(o.logs), Configure: func(c *app.Config) {
		g := module.SectionOf[*gatewaymod.Config](c.Modules)
		g.Edge.RelayBackoff = 200 * time.Millisecond
		g.Edge.RelayMaxBackoff = 400 * time.Millisecond
		g.Edge.DeliveryBackoff = 20 * time.Millisecond
		c.Timers.PollInterval = 100 * time.Millisecond
		if o.ring.Active() != "" {
			c.KeyRing.Ring = o.ring
		}
		if o.gateway != nil {
			o.gateway(g)
		}
	}})
}

// writer is the sink as Options.LogTo (nil: the default log).
func writer(l *apptest.LogSink) io.Writer {
	if l == nil {
		return nil
	}
	return l
}

// ring is a key ring of the given key ids (each key the id repeated).
func ring(t *testing.T, active string, ids ...string) keyring.Ring {
	t.Helper()
	keys := map[string][]byte{}
	for _, id := range ids {
		keys[id] = bytes.Repeat([]byte(id[:1]), keyring.KeySize)
	}
	r, err := keyring.FromKeys(active, keys)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// createConnection creates a connection and answers its id.
func createConnection(t *testing.T, h *apptest.Harness, token string, body map[string]any) (string, apptest.Response) {
	t.Helper()
	res := post(t, h, "/api/connections", token, body)
	apptest.Must(t, res, http.StatusCreated, "create connection")
	var c struct {
		ConnectionID string `json:"connection_id"`
	}
	res.JSON(t, &c)
	if !strings.HasPrefix(c.ConnectionID, "conn_") {
		t.Fatalf("connection id %q", c.ConnectionID)
	}
	return c.ConnectionID, res
}

// noInvalidNotifications: every notification the organization got passed its contract.
func noInvalidNotifications(t *testing.T, h *apptest.Harness) {
	t.Helper()
	if n := h.Count(t, `SELECT count(*) FROM notification_deliveries WHERE state = 'invalid'`); n != 0 {
		var reason string
		_ = h.App.Pool.QueryRow(context.Background(), `SELECT type || ': ' || reason FROM notification_deliveries WHERE state = 'invalid' LIMIT 1`).Scan(&reason)
		t.Fatalf("%d invalid notifications, e.g. %s", n, reason)
	}
}

// eventsOf counts a stream's events of a type.
func eventsOf(t *testing.T, h *apptest.Harness, stream, typ string) int64 {
	t.Helper()
	return h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id = $1 AND event_type = $2`, stream, typ)
}

func patch(t *testing.T, h *apptest.Harness, path, token string, body any) apptest.Response {
	t.Helper()
	return h.Do(t, "gateway", http.MethodPatch, path, token, body)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
