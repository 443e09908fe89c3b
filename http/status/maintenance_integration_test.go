package status_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

// TestMaintenanceWindowBounds: a window that starts in the past (beyond the
// 5-minute grace) or ends at or before its start is 422 invalid_input naming
// the member; a future window is scheduled.
func TestMaintenanceWindowBounds(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	now := time.Now().UTC().Truncate(time.Second)
	window := func(start, end time.Time) map[string]any {
		return map[string]any{"title": "Database upgrade", "message": "Short read-only window",
			"scheduledStart": start.Format(time.RFC3339), "scheduledEnd": end.Format(time.RFC3339)}
	}
	tests := []struct {
		name       string
		start, end time.Time
		pointers   []string
	}{
		{"start an hour ago", now.Add(-time.Hour), now.Add(time.Hour), []string{"/scheduledStart"}},
		{"whole window in the past", now.Add(-48 * time.Hour), now.Add(-47 * time.Hour), []string{"/scheduledStart"}},
		{"end equal to start", now.Add(time.Hour), now.Add(time.Hour), []string{"/scheduledEnd"}},
		{"end before start", now.Add(2 * time.Hour), now.Add(time.Hour), []string{"/scheduledEnd"}},
		{"past start and end before it", now.Add(-time.Hour), now.Add(-2 * time.Hour), []string{"/scheduledEnd", "/scheduledStart"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/api/maintenance", "", window(tc.start, tc.end)),
				http.StatusUnprocessableEntity, "invalid_input")
			var got []string
			for _, e := range p.Errors {
				got = append(got, e.Pointer)
			}
			if len(got) != len(tc.pointers) || !sameSet(got, tc.pointers) {
				t.Fatalf("pointers %v, want %v", got, tc.pointers)
			}
		})
	}
	apptest.Must(t, h.Do(t, "status", http.MethodPost, "/api/maintenance", "", window(now.Add(-time.Minute), now.Add(time.Hour))),
		http.StatusCreated, "a window starting a minute ago (within the grace)")
	apptest.Must(t, h.Do(t, "status", http.MethodPost, "/api/maintenance", "", window(now.Add(24*time.Hour), now.Add(25*time.Hour))),
		http.StatusCreated, "a future window")
}

func sameSet(a, b []string) bool {
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}
