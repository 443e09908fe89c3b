package status

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	domain "github.com/platform/backend/domain/status"
)

// The public status page shows names, groups, states and times; never the
// check URL, the host, the last HTTP status or the failure count (they map
// the organization's internal surface).
func TestPublicPageShowsOnlyPublicMembers(t *testing.T) {
	at := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	code, group, host, name := 503, "Core", "db-primary.internal", "Database"
	page := Page{
		Status: "degraded",
		Components: []Component{{ComponentID: "db", ComponentHost: host, ComponentName: name, ComponentGroup: &group,
			CheckURL: "https://10.0.0.5/health?token=s3cret", Status: "degraded", ConsecutiveFails: 4, LastHTTPStatus: &code, LastCheckedAt: &at}},
		Incidents: []Incident{{IncidentState: domain.IncidentState{IncidentID: "i1", Title: "Slow", Message: "Looking", Severity: "minor",
			Status: "investigating", Revision: 2, ComponentHost: &host, ComponentName: &name, CreatedAt: at, UpdatedAt: at}}},
	}
	raw, err := json.Marshal(page.Public())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"check_url", "10.0.0.5", "s3cret", "last_http_status", "503", "consecutive_fails", "component_host",
		"db-primary.internal", "component_id"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the public page shows %q: %s", secret, raw)
		}
	}
	var got struct {
		Status       string           `json:"status"`
		Components   []map[string]any `json:"components"`
		Incidents    []map[string]any `json:"incidents"`
		Maintenances []any            `json:"maintenances"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"component members", keys(got.Components[0]), []string{"component_group", "component_name", "status", "updated_at"}},
		{"incident members", keys(got.Incidents[0]), []string{"component_name", "created_at", "incident_id", "message", "severity", "status", "title", "updated_at"}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if got.Status != "degraded" || got.Components[0]["component_name"] != "Database" || got.Components[0]["status"] != "degraded" ||
		got.Components[0]["updated_at"] != "2026-05-02T10:00:00Z" || got.Maintenances == nil {
		t.Errorf("public page: %s", raw)
	}
	// An empty page has empty lists, not nulls.
	if raw, _ := json.Marshal(Page{Status: "operational"}.Public()); string(raw) != `{"status":"operational","components":[],"incidents":[],"maintenances":[]}` {
		t.Errorf("empty page: %s", raw)
	}
}
