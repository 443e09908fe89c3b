package contacts_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/projections/history"
)

// signIn adds a user with a role to the harness's organization and signs
// it in (the sign-in reads the accounts read model: retried until it is
// there); it answers the session's access token.
func signIn(t *testing.T, h *apptest.Harness, role string) string {
	t.Helper()
	email := testenv.UniqueName(role) + "@example.com"
	password := "a long enough password"
	m := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "test", Type: "system"}}
	if _, err := h.Identity().CreateUser(context.Background(), m, domain.Actor{PlatformRole: domain.RolePlatformSuperAdmin},
		identitycmd.CreateUser{Email: email, Password: password, Role: role}); err != nil {
		t.Fatal(err)
	}
	var s struct {
		AccessToken string `json:"access_token"`
		Role        string `json:"role"`
	}
	apptest.Eventually(t, 15*time.Second, "sign-in of a "+role, func() bool {
		res := h.Do(t, "identity", http.MethodPost, "/login", "-", map[string]any{"email": email, "password": password})
		if res.Status != http.StatusOK {
			return false
		}
		res.JSON(t, &s)
		return true
	})
	if s.Role != role {
		t.Fatalf("signed in as %q, want %q", s.Role, role)
	}
	return s.AccessToken
}

// TestNoteHistoryIsRestricted: deleted and edited contact notes stayed
// readable by every holder of history:read (guests included) in
// GET /api/history. Now the body of a note's current text is shown to
// them, earlier versions and a deleted note's only to admins (admin and
// above); an erasure removes every body of the note from the history for
// everyone, and a rebuild of the history from the log keeps it so.
func TestNoteHistoryIsRestricted(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	readers := map[string]string{"guest": signIn(t, h, "guest"), "member": signIn(t, h, "member"), "admin": signIn(t, h, "admin"),
		"key": h.APIKey}
	c := newClient(t, h, "")
	ct := c.create(map[string]any{"firstName": "Ada", "email": "ada@example.com"})
	note := func(body string) string {
		t.Helper()
		var n struct {
			NoteID string `json:"note_id"`
		}
		c.Do(http.MethodPost, "/api/contacts/"+ct.ContactID+"/notes", map[string]any{"body": body}, http.StatusCreated).JSON(t, &n)
		return n.NoteID
	}
	edited, kept, deleted := note("first words"), note("kept words"), note("deleted words")
	c.Do(http.MethodPut, "/api/contacts/"+ct.ContactID+"/notes/"+edited, map[string]any{"body": "second words"}, http.StatusOK)
	c.Do(http.MethodDelete, "/api/contacts/"+ct.ContactID+"/notes/"+deleted, nil, http.StatusOK)

	// The history of the three notes as a reader sees it, once every event
	// of theirs is in it (added, updated; added; added, deleted).
	audit := func(reader string, events int) string {
		t.Helper()
		var body string
		apptest.Eventually(t, 30*time.Second, fmt.Sprintf("%d note events in the history", events), func() bool {
			body = ""
			n := 0
			for _, id := range []string{edited, kept, deleted} {
				res := h.Do(t, "ops", http.MethodGet, "/api/history?streamId="+id, readers[reader], nil)
				apptest.Must(t, res, http.StatusOK, reader+"'s history")
				body += string(res.Body)
				n += strings.Count(string(res.Body), `"event_id"`)
			}
			return n == events
		})
		return body
	}
	expect := func(when, reader, body string, shown, hidden []string) {
		t.Helper()
		for _, w := range shown {
			if !strings.Contains(body, w) {
				t.Errorf("%s: %s does not see %q", when, reader, w)
			}
		}
		for _, w := range hidden {
			if strings.Contains(body, w) {
				t.Errorf("%s: %s sees %q", when, reader, w)
			}
		}
	}
	for _, reader := range []string{"guest", "member", "key"} {
		expect("before erasure", reader, audit(reader, 5), []string{"second words", "kept words"}, []string{"first words", "deleted words"})
	}
	expect("before erasure", "admin", audit("admin", 5), []string{"first words", "second words", "kept words", "deleted words"}, nil)
	// The route the attack run used: a type filter.
	for _, reader := range []string{"guest", "member"} {
		res := h.Do(t, "ops", http.MethodGet, "/api/history?type=contacts.note.deleted", readers[reader], nil)
		apptest.Must(t, res, http.StatusOK, "history by type")
		if !strings.Contains(string(res.Body), deleted) || strings.Contains(string(res.Body), "deleted words") {
			t.Errorf("%s's contacts.note.deleted history: %s", reader, res.Body)
		}
	}

	// Erasing needs contacts:manage (admins and above).
	erase := func(token, noteID string, want int) {
		t.Helper()
		apptest.Must(t, h.Do(t, "contacts", http.MethodPost, "/api/contacts/"+ct.ContactID+"/notes/"+noteID+"/erase", token,
			map[string]any{"confirmation": "ERASE"}), want, "erase")
	}
	erase(readers["member"], edited, http.StatusForbidden)
	apptest.ExpectProblem(t, h.Do(t, "contacts", http.MethodPost, "/api/contacts/"+ct.ContactID+"/notes/"+edited+"/erase", readers["admin"],
		map[string]any{"confirmation": "yes"}), http.StatusBadRequest, "invalid_input")
	erase(readers["admin"], edited, http.StatusOK)
	erase(readers["admin"], deleted, http.StatusOK) // a deleted note's words too
	c.Do(http.MethodGet, "/api/contacts/"+ct.ContactID+"/notes/"+edited, nil, http.StatusNotFound)
	gone := []string{"first words", "second words", "deleted words"}
	for reader := range readers {
		expect("after erasure", reader, audit(reader, 7), []string{"kept words"}, gone)
	}

	table := func() string {
		t.Helper()
		sql, err := h.App.Reader.SQL(context.Background(), history.Projection{}, `{{history_events}}`)
		if err != nil {
			t.Fatal(err)
		}
		return sql
	}
	stored := func() int64 {
		return h.Count(t, `SELECT count(*) FROM `+table()+` WHERE stream_id = ANY($1) AND payload::jsonb ? 'body'`, []string{edited, deleted})
	}
	if n := stored(); n != 0 {
		t.Fatalf("%d history rows of the erased notes still hold a body", n)
	}

	// A rebuild from the log erases again.
	apptest.Must(t, h.Do(t, "ops", http.MethodPost, "/api/projections/history/replay", h.OperatorKey(t), nil), http.StatusAccepted, "replay history")
	apptest.Eventually(t, 60*time.Second, "generation 2 of history to become active", func() bool {
		return h.Count(t, `SELECT count(*) FROM proj_generations WHERE projection='history' AND generation=2 AND state='active'`) == 1
	})
	if !strings.HasSuffix(table(), "_g2") {
		t.Fatalf("active history table %s, want generation 2", table())
	}
	if n := stored(); n != 0 {
		t.Fatalf("%d rebuilt history rows of the erased notes hold a body", n)
	}
	for reader := range readers {
		expect("after a rebuild", reader, audit(reader, 7), []string{"kept words"}, gone)
	}
}
