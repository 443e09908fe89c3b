package contacts_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	contactsview "github.com/platform/backend/projections/contacts"
)

// TestWidgetCountsContacts: the contacts tile counts the organization's
// live contacts, those created this week (since Monday 00:00 UTC) and each
// stage of its pipeline, in the pipeline's order, zeros included; a deleted
// contact counts nowhere, another organization sees zeros.
func TestWidgetCountsContacts(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	ann := c.create(map[string]any{"firstName": "Ann"})
	bob := c.create(map[string]any{"firstName": "Bob"})
	c.create(map[string]any{"firstName": "Cy", "stageId": "won"})
	dee := c.create(map[string]any{"firstName": "Dee"})
	c.Do(http.MethodDelete, "/api/contacts/"+dee.ContactID, nil, http.StatusOK)
	c.Do(http.MethodPut, "/api/pipeline/"+ann.ContactID+"/move", map[string]any{"stageId": "qualified"}, http.StatusOK)
	h.Settle(t)
	// Bob arrived last week: created_at is the command's time, so the read
	// model's row is moved back (a week's wait is not a test).
	sql, err := h.App.Reader.SQL(context.Background(), contactsview.Projection{}, `UPDATE {{contacts}} SET created_at = $2 WHERE contact_id = $1`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.App.Pool.Exec(context.Background(), sql, bob.ContactID, contactsview.WeekStart(time.Now()).Add(-time.Second)); err != nil {
		t.Fatal(err)
	}

	type stage struct {
		StageID string `json:"stage_id"`
		Name    string `json:"name"`
		Count   int    `json:"count"`
	}
	type tile struct {
		AppID       string  `json:"appId"`
		Contacts    int     `json:"contacts"`
		NewThisWeek int     `json:"new_this_week"`
		Stages      []stage `json:"stages"`
	}
	widget := func(token string) tile {
		res := h.Do(t, "contacts", http.MethodGet, "/api/widget", token, nil)
		apptest.Must(t, res, http.StatusOK, "widget")
		var body struct {
			Widgets []tile `json:"widgets"`
		}
		res.JSON(t, &body)
		if len(body.Widgets) != 1 {
			t.Fatalf("widget: %s", res.Body)
		}
		return body.Widgets[0]
	}
	got := widget("")
	counts := map[string]int{}
	var order []string
	for _, s := range got.Stages {
		counts[s.StageID] = s.Count
		order = append(order, s.StageID)
	}
	if got.AppID != "contacts" || got.Contacts != 3 || got.NewThisWeek != 2 || len(got.Stages) != 6 || order[0] != "lead" ||
		counts["lead"] != 1 || counts["qualified"] != 1 || counts["won"] != 1 {
		t.Fatalf("widget %+v", got)
	}
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	if o := widget(other); o.Contacts != 0 || o.NewThisWeek != 0 || len(o.Stages) != 6 || o.Stages[0].Count != 0 {
		t.Fatalf("another organization's widget %+v", o)
	}
}
