package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/internal/module"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	postmarkfake "github.com/platform/backend/providers/email/postmark/fake"
)

// restart runs the platform again on the same database and topics with
// another key ring (a deployment whose PLATFORM_KEYRING changed).
func restart(t *testing.T, prev *apptest.Harness, keys keyring.Ring, bases map[string]string) *apptest.Harness {
	t.Helper()
	prev.Stop()
	return apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.DatabaseURL, c.Kafka.Topics.Prefix = prev.Config.DatabaseURL, prev.Config.Kafka.Topics.Prefix
		c.KeyRing.Ring = keys
		module.SectionOf[*gatewaymod.Config](c.Modules).Edge.BaseURLs = bases
	}})
}

// TestKeyRotationAndCanary: credentials sealed under one key stay
// readable when a new key becomes active, are re-sealed under it by
// rotation (one command per credential) and stay readable once the old
// key has left the ring. A ring that opens none of them (the key lost):
// the canary, at start, records each credential once per credential and
// key id (gateway.credential.invalid, valid), again and again finds
// nothing new, calls on them are 409 credential_undecryptable, and new
// credentials heal the connection.
func TestKeyRotationAndCanary(t *testing.T) {
	pm := postmarkfake.Start(postmarkfake.Options{ServerToken: "pm_rotation_token"})
	defer pm.Close()
	st := mustStripe(t, "sk_test_rotation")
	bases := map[string]string{"email_provider_a": pm.URL(), "payments_provider_a": st.URL()}
	h := startEdge(t, edgeOptions{ring: ring(t, "alpha", "alpha"), gateway: func(g *gatewaymod.Config) {
		g.Edge.BaseURLs = bases
	}})
	org, key := h.OrgID, h.APIKey
	var ids []string
	for range 2 {
		id, _ := createConnection(t, h, key, map[string]any{"provider": "payments_provider_a", "name": "stripe",
			"credentials": map[string]any{"secret_key": "sk_test_rotation"}})
		ids = append(ids, id)
	}
	pmID, _ := createConnection(t, h, key, map[string]any{"provider": "email_provider_a", "name": "postmark",
		"credentials": map[string]any{"server_token": "pm_rotation_token"}})
	ids = append(ids, pmID)
	use := func(h *apptest.Harness) {
		t.Helper()
		apptest.Must(t, invoke(t, h, key, "customers.create", map[string]any{"email": "r@example.com"}), http.StatusOK, "payments")
		apptest.Must(t, sendEmail(t, h, key, map[string]any{"to": "r@example.com", "from": "s@example.com", "subject": "x", "text": "x"}),
			http.StatusOK, "email")
	}
	use(h)
	keyOf := func(h *apptest.Harness) map[string]int64 {
		rows, err := h.App.Pool.Query(context.Background(), `SELECT key_id, count(*) FROM gateway_credentials GROUP BY key_id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			var k string
			var n int64
			_ = rows.Scan(&k, &n)
			out[k] = n
		}
		return out
	}

	// A new active key beside the old one: everything still opens; the key
	// upkeep at start re-seals every credential under it, one command each.
	h = restart(t, h, ring(t, "beta", "alpha", "beta"), bases)
	apptest.Eventually(t, 30*time.Second, "the upkeep re-seals the three credentials", func() bool {
		k := keyOf(h)
		return k["beta"] == 3 && len(k) == 1
	})
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.credential.rotated'`); n != 3 {
		t.Fatalf("%d rotations recorded, want 3", n)
	}
	use(h)
	newID, _ := createConnection(t, h, key, map[string]any{"provider": "payments_provider_a", "name": "stripe new",
		"credentials": map[string]any{"secret_key": "sk_test_rotation"}})
	ids = append(ids, newID)
	// The organization's payments move to the new connection when chosen.
	apptest.Must(t, post(t, h, "/api/connections/"+newID+"/choose", key, map[string]any{}), http.StatusOK, "choose the new connection")
	edge := apptest.Provided[*gatewaycmd.Edge](h)
	if rotated, unreadable, err := edge.RotateAll(context.Background()); err != nil || rotated != 0 || unreadable != 0 {
		t.Fatalf("a second sweep rotated %d (%d unreadable): %v", rotated, unreadable, err)
	}
	if k := keyOf(h); k["beta"] != 4 || len(k) != 1 {
		t.Fatalf("keys after rotation %v", k)
	}
	rot := post(t, h, "/api/connections/"+newID+"/credentials/rotate", key, map[string]any{})
	apptest.Must(t, rot, http.StatusOK, "rotating a current credential")
	if !strings.Contains(string(rot.Body), `"version":1`) {
		t.Fatalf("a credential already under the active key changed: %s", rot.Body)
	}
	use(h)

	// The old key leaves the ring: everything opens; the canary finds nothing.
	h = restart(t, h, ring(t, "beta", "beta"), bases)
	use(h)
	if n, err := apptest.Provided[*gatewaycmd.Edge](h).Canary(context.Background()); err != nil || n != 0 {
		t.Fatalf("the canary found %d: %v", n, err)
	}

	// The key is lost: the canary at start reports each credential once.
	h = restart(t, h, ring(t, "gamma", "gamma"), bases)
	apptest.Eventually(t, 30*time.Second, "the canary's reports", func() bool {
		return h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.credential.undecryptable'`) == 4
	})
	edge = apptest.Provided[*gatewaycmd.Edge](h)
	for range 2 {
		if n, err := edge.Canary(context.Background()); err != nil || n != 4 {
			t.Fatalf("the canary found %d: %v", n, err)
		}
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.credential.undecryptable'`); n != 4 {
		t.Fatalf("%d reports, want one per credential and key", n)
	}
	got := h.Notifications(t, org, "gateway.credential.invalid", 4)
	for k, data := range got {
		if !strings.HasPrefix(k, "gateway:credential-invalid:cred_") || !strings.HasSuffix(k, ":beta") ||
			data["credential_table"] != "gateway_credentials" || !strings.HasPrefix(data["credential_identity"].(string), "organization:"+org+"/provider:") {
			t.Fatalf("%s: %v", k, data)
		}
	}
	apptest.ExpectProblem(t, invoke(t, h, key, "customers.create", map[string]any{"email": "r@example.com"}), http.StatusConflict,
		"credential_undecryptable")
	apptest.ExpectProblem(t, post(t, h, "/api/connections/"+ids[0]+"/credentials/rotate", key, map[string]any{}), http.StatusConflict,
		"credential_undecryptable")
	apptest.Eventually(t, 20*time.Second, "the view shows it", func() bool {
		return strings.Contains(string(get(t, h, "/api/connections/"+newID, key).Body), `"state":"undecryptable"`)
	})
	// New credentials heal the chosen one: usable, and the canary is quiet about it.
	apptest.Must(t, h.Do(t, "gateway", http.MethodPut, "/api/connections/"+newID+"/credentials", key,
		map[string]any{"credentials": map[string]any{"secret_key": "sk_test_rotation"}}), http.StatusOK, "new credentials")
	apptest.Must(t, invoke(t, h, key, "customers.create", map[string]any{"email": "r@example.com"}), http.StatusOK, "healed")
	if n, _ := edge.Canary(context.Background()); n != 3 {
		t.Fatalf("the canary found %d after the heal, want 3", n)
	}
	noInvalidNotifications(t, h)
}
