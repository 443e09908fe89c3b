package apptest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

// TestIncidentReadYourWrites: a create answers with its position, and a query
// that sends the position back sees the incident.
func TestIncidentReadYourWrites(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	res := h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "API errors", "message": "Investigating", "severity": "major"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	var inc struct {
		IncidentID string `json:"incident_id"`
		Revision   int    `json:"revision"`
	}
	res.JSON(t, &inc)
	pos := res.Header.Get("X-Platform-Position")
	if pos != inc.IncidentID+"@1" {
		t.Fatalf("position %q, want %s@1", pos, inc.IncidentID)
	}
	start := time.Now()
	q := h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+inc.IncidentID, "", nil, "X-Platform-Min-Position", pos)
	if q.Status != http.StatusOK {
		t.Fatalf("query: %d %s (after %s)", q.Status, q.Body, time.Since(start))
	}
	var list struct {
		Incidents []struct {
			IncidentID string `json:"incident_id"`
			Status     string `json:"status"`
		} `json:"incidents"`
	}
	q.JSON(t, &list)
	if len(list.Incidents) != 1 || list.Incidents[0].Status != "investigating" {
		t.Fatalf("read model: %s", q.Body)
	}
}
