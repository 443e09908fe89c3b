package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	view "github.com/platform/backend/projections/dashboard"
)

// person is a signed-up owner of a new organization with a session.
type person struct {
	Token, Email, Password, OrgID string
}

func signUp(t *testing.T, h *apptest.Harness, services ...string) person {
	t.Helper()
	slug := testenv.UniqueName("dash")
	p := person{Email: slug + "@example.com", Password: "correct horse battery " + slug}
	tok, _, err := h.Access().SignupToken(context.Background(), identitycmd.Register{Email: p.Email, Password: p.Password, Name: "Person",
		OrganizationName: "Org " + slug, OrganizationSlug: strings.ReplaceAll(slug, "_", "-"), CreateOrganization: true})
	if err != nil {
		t.Fatal(err)
	}
	res := h.Do(t, "identity", http.MethodPost, "/register/confirm", "-", map[string]any{"token": tok})
	apptest.Must(t, res, http.StatusCreated, "register")
	var body struct {
		Organization struct {
			OrganizationID string `json:"organization_id"`
		} `json:"organization"`
		Session struct {
			AccessToken string `json:"access_token"`
		} `json:"session"`
	}
	res.JSON(t, &body)
	p.Token, p.OrgID = body.Session.AccessToken, body.Organization.OrganizationID
	system := commands.Meta{Actor: eventstore.Actor{ID: "test", Type: "system"}}
	for _, s := range services {
		if _, err := h.Access().GrantService(context.Background(), system, p.OrgID, s, domain.AccessGranted); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// batch is POST /api/widgets' answer as tests read it.
type batch struct {
	Success bool              `json:"success"`
	Context string            `json:"context"`
	Widgets []json.RawMessage `json:"widgets"`
	Apps    []struct {
		AppID      string            `json:"appId"`
		State      string            `json:"state"`
		AgeSeconds int               `json:"ageSeconds"`
		Reason     string            `json:"reason"`
		Widgets    []json.RawMessage `json:"widgets"`
	} `json:"apps"`
	Omitted []view.Omitted `json:"omitted"`
}

// states are the apps' states by app id.
func (b batch) states() map[string]string {
	out := map[string]string{}
	for _, a := range b.Apps {
		out[a.AppID] = a.State
	}
	return out
}

func (b batch) age(app string) int {
	for _, a := range b.Apps {
		if a.AppID == app {
			return a.AgeSeconds
		}
	}
	return -1
}

func install(t *testing.T, h *apptest.Harness, token, app, context string, want int) {
	t.Helper()
	res := h.Do(t, "dashboard", http.MethodPut, "/api/apps/"+app+"/installation", token, map[string]any{"context": context})
	apptest.Must(t, res, want, "install "+app)
}
