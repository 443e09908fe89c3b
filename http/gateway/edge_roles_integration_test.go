package gateway_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
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
	if got := inUse(created.Header.Get("X-Platform-Position")); !got[first] || got[second] || got["sandbox:email_provider_a"] {
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
