package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestConnectionLifecycle: a connection is created with its credential,
// read back without it, updated, disconnected, reconnected by new
// credentials, deauthorized and deleted; each change that stops it is
// gateway.provider.disconnected once, valid; a deleted connection's
// ciphertext is gone; another organization sees and changes none of it.
func TestConnectionLifecycle(t *testing.T) {
	h := startEdge(t, edgeOptions{})
	id, created := createConnection(t, h, "", map[string]any{"provider": "payments_provider_a", "name": "Shop Stripe",
		"app_id": "shop", "credentials": map[string]any{"secret_key": "sk_test_lifecycle_secret_1", "webhook_secret": "whsec_lifecycle_2"}})
	for _, s := range []string{"sk_test_lifecycle_secret_1", "whsec_lifecycle_2"} {
		if strings.Contains(string(created.Body), s) {
			t.Fatalf("the answer shows a secret: %s", created.Body)
		}
	}
	if !strings.Contains(string(created.Body), `"members":["secret_key","webhook_secret"]`) || !strings.Contains(string(created.Body), `"byok":true`) {
		t.Fatalf("create answered %s", created.Body)
	}
	pos := created.Header.Get("X-Platform-Position")
	got := h.Do(t, "gateway", http.MethodGet, "/api/connections/"+id, "", nil, "X-Platform-Min-Position", pos)
	apptest.Must(t, got, http.StatusOK, "get")
	if !strings.Contains(string(got.Body), `"status":"active"`) || !strings.Contains(string(got.Body), `"key_id":"sandbox-not-secret"`) {
		t.Fatalf("get answered %s", got.Body)
	}
	list := get(t, h, "/api/connections", "")
	apptest.Must(t, list, http.StatusOK, "list")
	if !strings.Contains(string(list.Body), id) || !strings.Contains(string(list.Body), `"connection_id":"sandbox:email_provider_a"`) ||
		!strings.Contains(string(list.Body), `"sandbox":true`) {
		t.Fatalf("list answered %s", list.Body)
	}

	// Another organization: missing alike, and it cannot change it.
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	apptest.ExpectProblem(t, get(t, h, "/api/connections/"+id, other), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, get(t, h, "/api/connections/"+id+"/webhook-secret", other), http.StatusNotFound, "not_found")
	// Bad ids: a NUL, an id past the bound (422 naming the member), an unknown one (404).
	apptest.ExpectProblem(t, get(t, h, "/api/connections/conn%00x/webhook-secret", ""), http.StatusUnprocessableEntity, "invalid_input")
	apptest.ExpectProblem(t, get(t, h, "/api/connections/"+strings.Repeat("c", 5000)+"/webhook-secret", ""), http.StatusUnprocessableEntity, "invalid_input")
	apptest.ExpectProblem(t, get(t, h, "/api/connections/conn_missing/webhook-secret", ""), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, patch(t, h, "/api/connections/"+id, other, map[string]any{"name": "x"}), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, post(t, h, "/api/connections/"+id+"/disconnect", other, map[string]any{}), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "gateway", http.MethodPut, "/api/connections/"+id+"/credentials", other,
		map[string]any{"credentials": map[string]any{"secret_key": "sk_test_x"}}), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, post(t, h, "/api/connections/"+id+"/credentials/rotate", other, map[string]any{}), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, post(t, h, "/api/connections/"+id+"/deauthorize", other, map[string]any{}), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "gateway", http.MethodDelete, "/api/connections/"+id, other, nil), http.StatusNotFound, "not_found")
	// Stripe has no subscription handshake: its route takes POST alone.
	handshake := h.Do(t, "gateway", http.MethodGet, "/webhooks/stripe/"+id+"?hub.mode=subscribe", "-", nil)
	apptest.ExpectProblem(t, handshake, http.StatusMethodNotAllowed, "method_not_allowed")
	if allow := handshake.Header.Get("Allow"); allow != "POST" {
		t.Fatalf("a handshake on a Stripe route: Allow %q", allow)
	}
	if strings.Contains(string(get(t, h, "/api/connections", other).Body), id) {
		t.Fatal("another organization lists the connection")
	}

	// Update, then the three ways out.
	up := patch(t, h, "/api/connections/"+id, "", map[string]any{"name": "Renamed", "app_id": nil})
	apptest.Must(t, up, http.StatusOK, "update")
	if !strings.Contains(string(up.Body), `"name":"Renamed"`) || !strings.Contains(string(up.Body), `"app_id":null`) {
		t.Fatalf("update answered %s", up.Body)
	}
	apptest.Must(t, post(t, h, "/api/connections/"+id+"/disconnect", "", map[string]any{"reason": "paused"}), http.StatusOK, "disconnect")
	apptest.Must(t, post(t, h, "/api/connections/"+id+"/disconnect", "", map[string]any{}), http.StatusOK, "disconnect again")
	set := h.Do(t, "gateway", http.MethodPut, "/api/connections/"+id+"/credentials", "", map[string]any{"credentials": map[string]any{
		"secret_key": "sk_test_lifecycle_secret_3"}})
	apptest.Must(t, set, http.StatusOK, "new credentials")
	if !strings.Contains(string(set.Body), `"status":"active"`) || !strings.Contains(string(set.Body), `"version":2`) ||
		strings.Contains(string(set.Body), "sk_test_lifecycle_secret_3") {
		t.Fatalf("new credentials answered %s", set.Body)
	}
	apptest.Must(t, post(t, h, "/api/connections/"+id+"/deauthorize", "", map[string]any{}), http.StatusOK, "deauthorize")
	del := h.Do(t, "gateway", http.MethodDelete, "/api/connections/"+id, "", nil)
	apptest.Must(t, del, http.StatusOK, "delete")
	if !strings.Contains(string(del.Body), `"status":"deleted"`) {
		t.Fatalf("delete answered %s", del.Body)
	}
	if n := h.Count(t, `SELECT count(*) FROM gateway_credentials WHERE connection_id = $1`, id); n != 0 {
		t.Fatal("the deleted connection's ciphertext is still stored")
	}
	apptest.ExpectProblem(t, get(t, h, "/api/connections/"+id+"/webhook-secret", ""), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, patch(t, h, "/api/connections/"+id, "", map[string]any{"name": "x"}), http.StatusConflict, "connection_deleted")
	apptest.ExpectProblem(t, h.Do(t, "gateway", http.MethodPut, "/api/connections/"+id+"/credentials", "",
		map[string]any{"credentials": map[string]any{"secret_key": "sk_test_x"}}), http.StatusConflict, "connection_deleted")

	got3 := h.Notifications(t, h.OrgID, "gateway.provider.disconnected", 3)
	statuses := map[string]bool{}
	for key, data := range got3 {
		if !strings.HasPrefix(key, "gateway:provider-disconnected:"+id+":") {
			t.Fatalf("key %s", key)
		}
		statuses[data["status"].(string)] = true
	}
	if len(got3) != 3 || !statuses["disconnected"] || !statuses["deauthorized"] || !statuses["deleted"] {
		t.Fatalf("disconnections notified: %v", got3)
	}
	noInvalidNotifications(t, h)

	// Bad input is 422 naming the member, never quoting a credential.
	bad := post(t, h, "/api/connections", "", map[string]any{"provider": "payments_provider_a", "name": "x",
		"credentials": map[string]any{"secret_key": "sk_test_line\nbreak_secret"}})
	apptest.ExpectProblem(t, bad, http.StatusUnprocessableEntity, "invalid_input")
	if strings.Contains(string(bad.Body), "break_secret") {
		t.Fatalf("a refused credential is quoted: %s", bad.Body)
	}
	missing := post(t, h, "/api/connections", "", map[string]any{"provider": "email_provider_a", "name": "x",
		"credentials": map[string]any{"webhook_username": "u"}})
	apptest.ExpectProblem(t, missing, http.StatusUnprocessableEntity, "invalid_input")
	if !strings.Contains(string(missing.Body), "/credentials/server_token") {
		t.Fatalf("the missing member is not named: %s", missing.Body)
	}
	internal := post(t, h, "/api/connections", "", map[string]any{"provider": "email_provider_a", "name": "x",
		"webhook_url": "http://169.254.169.254/latest", "credentials": map[string]any{"server_token": "t"}})
	apptest.ExpectProblem(t, internal, http.StatusUnprocessableEntity, "invalid_input")
}
