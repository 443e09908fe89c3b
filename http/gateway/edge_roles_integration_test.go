package gateway_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	postmarkfake "github.com/platform/backend/providers/email/postmark/fake"
)

// TestConnectionsNeedAnAdminAndAnExplicitChoice (issue #18): a member
// could take over the organization's provider traffic: members created
// connections, the newest connection of a provider served everyone, and
// members read every connection's webhook signing secret. Now every change
// to a connection and the secret need an admin role (a session's, or for a
// key its creator's, current role: 403 permission_denied below it); which
// connection serves calls that name none is an explicit choice: the first
// connection of a provider is chosen when created, a second waits for
// connections.choose, and the traffic moves only then.
func TestConnectionsNeedAnAdminAndAnExplicitChoice(t *testing.T) {
	pm := postmarkfake.Start(postmarkfake.Options{ServerToken: "pm_roles_token"})
	defer pm.Close()
	h := startEdge(t, edgeOptions{gateway: func(g *gatewaymod.Config) {
		g.Edge.BaseURLs = map[string]string{"email_provider_a": pm.URL()}
	}})
	admin := newPerson(t, h, h.OrgID, "admin")
	member := newPerson(t, h, h.OrgID, "member")
	conn := func(name string) map[string]any {
		return map[string]any{"provider": "email_provider_a", "name": name, "credentials": map[string]any{"server_token": "pm_roles_token"}}
	}
	denied := func(res apptest.Response, what string) {
		t.Helper()
		p := apptest.ExpectProblem(t, res, http.StatusForbidden, "permission_denied")
		if !contains(p.Detail, "admin role") {
			t.Fatalf("%s: refused for %q", what, p.Detail)
		}
	}
	for who, token := range map[string]string{"session": member.Session, "key": member.Key} {
		denied(post(t, h, "/api/connections", token, conn("a member's")), "a member's "+who+" creates")
	}
	if n := h.Count(t, `SELECT count(*) FROM gateway_connection_index WHERE organization_id = $1`, h.OrgID); n != 0 {
		t.Fatalf("%d connections stored after the refusals", n)
	}

	// An admin's session creates the first: chosen at once, and a member's
	// calls use it.
	first, created := createConnection(t, h, admin.Session, conn("first"))
	var c struct {
		Choice struct {
			ChosenAt *string `json:"chosen_at"`
		} `json:"choice"`
	}
	created.JSON(t, &c)
	if c.Choice.ChosenAt == nil {
		t.Fatalf("the first connection is not chosen: %s", created.Body)
	}
	sentThrough := func(token string) string {
		t.Helper()
		res := sendEmail(t, h, token, map[string]any{"to": "a@example.com", "from": "shop@example.com", "subject": "Order", "text": "x",
			"provider": "email_provider_a"})
		apptest.Must(t, res, http.StatusOK, "send")
		var d delivered
		res.JSON(t, &d)
		return d.ConnectionID
	}
	if got := sentThrough(member.Key); got != first {
		t.Fatalf("sent through %s, want the first connection %s", got, first)
	}

	// An admin's key creates a second: not chosen, the traffic stays.
	firstAt := created.Header.Get("X-Platform-Position")
	second, created := createConnection(t, h, admin.Key, conn("second"))
	c.Choice.ChosenAt = nil
	created.JSON(t, &c)
	if c.Choice.ChosenAt != nil {
		t.Fatalf("the second connection was chosen at create: %s", created.Body)
	}
	if got := sentThrough(member.Session); got != first {
		t.Fatalf("creating a second connection moved the traffic to %s", got)
	}
	inUse := func(pos string) map[string]bool {
		t.Helper()
		res := h.Do(t, "gateway", http.MethodGet, "/api/connections", member.Session, nil, "X-Platform-Min-Position", pos)
		apptest.Must(t, res, http.StatusOK, "list")
		var list struct {
			Connections []struct {
				ConnectionID string `json:"connection_id"`
				Provider     string `json:"provider"`
				Choice       struct {
					InUse bool `json:"in_use"`
				} `json:"choice"`
			} `json:"connections"`
		}
		res.JSON(t, &list)
		out := map[string]bool{}
		for _, l := range list.Connections {
			if l.Provider == "email_provider_a" {
				out[l.ConnectionID] = l.Choice.InUse
			}
		}
		return out
	}
	// Both creations' positions: each connection is a stream of its own,
	// and the read model may apply one before the other.
	if got := inUse(firstAt + "," + created.Header.Get("X-Platform-Position")); !got[first] || got[second] || got["sandbox:email_provider_a"] {
		t.Fatalf("in use: %v", got)
	}

	// Nothing a member's credentials change of a connection, nor read of
	// its secret.
	for who, token := range map[string]string{"session": member.Session, "key": member.Key} {
		for _, r := range []struct {
			method, path string
			body         any
		}{
			{http.MethodPost, "/api/connections/" + second + "/choose", map[string]any{}},
			{http.MethodPatch, "/api/connections/" + first, map[string]any{"webhook_url": "https://attacker.example/hook"}},
			{http.MethodPut, "/api/connections/" + first + "/credentials", map[string]any{"credentials": map[string]any{"server_token": "mine"}}},
			{http.MethodPost, "/api/connections/" + first + "/credentials/rotate", map[string]any{}},
			{http.MethodPost, "/api/connections/" + first + "/disconnect", map[string]any{}},
			{http.MethodPost, "/api/connections/" + first + "/deauthorize", map[string]any{}},
			{http.MethodDelete, "/api/connections/" + first, nil},
			{http.MethodGet, "/api/connections/" + first + "/webhook-secret", nil},
		} {
			denied(h.Do(t, "gateway", r.method, r.path, token, r.body), "a member's "+who+": "+r.method+" "+r.path)
		}
	}
	if got := sentThrough(member.Key); got != first {
		t.Fatalf("after the refusals the traffic went to %s", got)
	}
	// Members still read connections.
	apptest.Must(t, get(t, h, "/api/connections/"+first, member.Key), http.StatusOK, "a member reads a connection")

	// The admin chooses the second: the traffic moves.
	chosen := post(t, h, "/api/connections/"+second+"/choose", admin.Key, map[string]any{})
	apptest.Must(t, chosen, http.StatusOK, "choose")
	if got := sentThrough(member.Key); got != second {
		t.Fatalf("after the choice the traffic went to %s", got)
	}
	if got := inUse(chosen.Header.Get("X-Platform-Position")); got[first] || !got[second] {
		t.Fatalf("in use after the choice: %v", got)
	}
	apptest.Must(t, get(t, h, "/api/connections/"+second+"/webhook-secret", admin.Session), http.StatusOK, "an admin reads the secret")
	// Choosing a stopped connection is refused; the traffic stays.
	apptest.Must(t, post(t, h, "/api/connections/"+first+"/disconnect", admin.Session, map[string]any{}), http.StatusOK, "disconnect")
	apptest.ExpectProblem(t, post(t, h, "/api/connections/"+first+"/choose", admin.Session, map[string]any{}), http.StatusConflict,
		"connection_disconnected")
	apptest.ExpectProblem(t, post(t, h, "/api/connections/conn_missing/choose", admin.Session, map[string]any{}), http.StatusNotFound,
		"not_found")

	// A key acts with its creator's current role: the admin demoted to
	// member, the admin's key is refused at once.
	if _, err := h.Identity().ChangeMemberRole(context.Background(), commands.Meta{OrganizationID: h.OrgID,
		Actor: eventstore.Actor{ID: "apptest", Type: "system"}}, identity.Actor{Role: identity.RoleOwner},
		identitycmd.SetMember{OrganizationID: h.OrgID, UserID: admin.UserID, Role: identity.RoleMember}); err != nil {
		t.Fatal(err)
	}
	denied(post(t, h, "/api/connections/"+second+"/choose", admin.Key, map[string]any{}), "a demoted admin's key")
	denied(get(t, h, "/api/connections/"+second+"/webhook-secret", admin.Session), "a demoted admin's session")
}

// TestConnectionsRecordedBeforeChoices: connections stored before the
// choice existed (events and snapshots without a choice member, the
// index and read model without chosen_at) keep serving as they did: each
// counts as chosen when created, so the newest active one stays in use,
// on the write side (migration 110), in the read model (its guarded column
// add) and in the domain (a command on an old stream); a later choice
// moves the traffic as for any other.
func TestConnectionsRecordedBeforeChoices(t *testing.T) {
	pm := postmarkfake.Start(postmarkfake.Options{ServerToken: "pm_legacy_token"})
	defer pm.Close()
	bases := map[string]string{"email_provider_a": pm.URL()}
	h := startEdge(t, edgeOptions{gateway: func(g *gatewaymod.Config) { g.Edge.BaseURLs = bases }})
	conn := func(name string) map[string]any {
		return map[string]any{"provider": "email_provider_a", "name": name, "credentials": map[string]any{"server_token": "pm_legacy_token"}}
	}
	older, _ := createConnection(t, h, "", conn("older"))
	newer, created := createConnection(t, h, "", conn("newer"))
	apptest.Eventually(t, 30*time.Second, "the read model shows both", func() bool {
		return h.Do(t, "gateway", http.MethodGet, "/api/connections/"+newer, "", nil, "X-Platform-Min-Position",
			created.Header.Get("X-Platform-Position")).Status == http.StatusOK
	})
	// Back to the records of before: no choice member anywhere, the index
	// and read model without their column, migration 110 not applied.
	org, key := h.OrgID, h.APIKey
	streams := []string{"connection:" + older, "connection:" + newer}
	for _, sql := range []string{
		`UPDATE es_events SET payload = payload - 'choice' WHERE stream_id = ANY($1)`,
		`UPDATE es_streams SET snapshot = snapshot - 'choice' WHERE stream_id = ANY($1) AND snapshot IS NOT NULL`,
	} {
		if _, err := h.App.Pool.Exec(context.Background(), sql, streams); err != nil {
			t.Fatal(err)
		}
	}
	for _, sql := range []string{
		`DROP INDEX gateway_connection_index_chosen`,
		`ALTER TABLE gateway_connection_index DROP COLUMN chosen_at`,
		`CREATE INDEX gateway_connection_index_active ON gateway_connection_index (organization_id, provider, created_at DESC) WHERE status = 'active'`,
		`DELETE FROM schema_migrations WHERE component = 'gateway-commands' AND name = '110_connection_choice.sql'`,
		`ALTER TABLE gateway_connections_g1 DROP COLUMN chosen_at`,
	} {
		if _, err := h.App.Pool.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	h.Stop()
	h = apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.DatabaseURL, c.Kafka.Topics.Prefix = h.Config.DatabaseURL, h.Config.Kafka.Topics.Prefix
		module.SectionOf[*gatewaymod.Config](c.Modules).Edge.BaseURLs = bases
	}})
	h.OrgID, h.APIKey = org, key

	send := func() string {
		t.Helper()
		res := sendEmail(t, h, "", map[string]any{"to": "a@example.com", "from": "shop@example.com", "subject": "Order", "text": "x",
			"provider": "email_provider_a"})
		apptest.Must(t, res, http.StatusOK, "send")
		var d delivered
		res.JSON(t, &d)
		return d.ConnectionID
	}
	if got := send(); got != newer {
		t.Fatalf("after the migration calls use %s, want the newest %s as before", got, newer)
	}
	var list struct {
		Connections []struct {
			ConnectionID string `json:"connection_id"`
			CreatedAt    string `json:"created_at"`
			Choice       struct {
				ChosenAt *string `json:"chosen_at"`
				InUse    bool    `json:"in_use"`
			} `json:"choice"`
		} `json:"connections"`
	}
	get(t, h, "/api/connections", "").JSON(t, &list)
	for _, c := range list.Connections {
		if c.ConnectionID != older && c.ConnectionID != newer {
			continue
		}
		if c.Choice.ChosenAt == nil || *c.Choice.ChosenAt != c.CreatedAt || c.Choice.InUse != (c.ConnectionID == newer) {
			t.Fatalf("the read model shows %+v", c)
		}
	}
	// A command on an old stream keeps its choice: still in use.
	apptest.Must(t, patch(t, h, "/api/connections/"+newer, "", map[string]any{"name": "renamed"}), http.StatusOK, "rename")
	if got := send(); got != newer {
		t.Fatalf("after an update of the old stream calls use %s", got)
	}
	apptest.Must(t, post(t, h, "/api/connections/"+older+"/choose", "", map[string]any{}), http.StatusOK, "choose the older")
	if got := send(); got != older {
		t.Fatalf("after the choice calls use %s", got)
	}
}
