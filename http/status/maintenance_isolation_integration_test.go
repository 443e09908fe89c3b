package status_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestMaintenanceOfAnotherTenant: another organization can neither start,
// reschedule nor switch off the automation of a maintenance window it does
// not own; it answers 404 exactly like a missing window, and the window is
// unchanged.
func TestMaintenanceOfAnotherTenant(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	_, other := h.NewOrganization(t, "Other Org", testenv.UniqueName("other"), apptest.DefaultScopes...)
	start := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Second)
	res := h.Do(t, "status", http.MethodPost, "/api/maintenance", "", map[string]any{"title": "Database upgrade", "message": "Planned",
		"scheduledStart": start.Format(time.RFC3339), "scheduledEnd": start.Add(time.Hour).Format(time.RFC3339), "autoStart": true})
	apptest.Must(t, res, http.StatusCreated, "schedule")
	var m struct {
		MaintenanceID string `json:"maintenance_id"`
	}
	res.JSON(t, &m)
	if m.MaintenanceID == "" {
		t.Fatalf("no maintenance id in %s", res.Body)
	}
	for _, body := range []map[string]any{
		{"status": "in_progress"},
		{"scheduledStart": start.Add(time.Hour).Format(time.RFC3339), "scheduledEnd": start.Add(2 * time.Hour).Format(time.RFC3339)},
		{"autoStart": false},
	} {
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPatch, "/api/maintenance/"+m.MaintenanceID, other, body), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPatch, "/api/maintenance/00000000-0000-7000-8000-000000000000", other, body),
			http.StatusNotFound, "not_found")
	}
	// The owner's window is as scheduled: a no-op reschedule to the same
	// times answers the unchanged window.
	res = h.Do(t, "status", http.MethodPatch, "/api/maintenance/"+m.MaintenanceID, "", map[string]any{
		"scheduledStart": start.Format(time.RFC3339), "scheduledEnd": start.Add(time.Hour).Format(time.RFC3339)})
	apptest.Must(t, res, http.StatusOK, "owner reschedule")
	if !strings.Contains(string(res.Body), `"status":"scheduled"`) || !strings.Contains(string(res.Body), start.Format("2006-01-02T15:04:05")) {
		t.Fatalf("the owner's window changed: %s", res.Body)
	}
}
