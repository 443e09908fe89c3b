package status

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	domain "github.com/platform/backend/domain/status"
	statusview "github.com/platform/backend/projections/status"
)

// sampleStatus is a page with something of everything: an open incident
// with a timeline, maintenance scheduled and running, grouped and ungrouped
// components, a resolved incident and a completed window, and text that
// would be markup if it were not escaped.
func sampleStatus(now time.Time) publicStatus {
	core, edge, api, db := "Core", "Edge", "API", "Database"
	checked := now.Add(-time.Minute)
	at := func(d time.Duration) time.Time { return now.Add(-d).UTC() }
	s := publicStatus{
		Page: statusview.PublicPage{Status: "degraded",
			Components: []statusview.PublicComponent{
				{Name: "Website", Status: "operational", UpdatedAt: &checked},
				{Name: api, Group: &core, Status: "operational", UpdatedAt: &checked},
				{Name: db, Group: &core, Status: "degraded", UpdatedAt: &checked},
				{Name: "CDN", Group: &edge, Status: "operational"},
			},
			Incidents: []statusview.PublicIncident{{IncidentID: "inc-open", Title: `Errors <script>alert("x")</script> & "quotes"`,
				Message: "We found it", Severity: "major", Status: "identified", ComponentName: &db, CreatedAt: at(2 * time.Hour), UpdatedAt: at(time.Hour)}},
			Maintenances: []statusview.Maintenance{
				{MaintenanceID: "m-run", Title: "Database upgrade", Message: "Read-only for a while", Status: "in_progress", Revision: 2,
					ScheduledStart: at(30 * time.Minute), ScheduledEnd: now.Add(30 * time.Minute), UpdatedAt: at(30 * time.Minute)},
				{MaintenanceID: "m-next", Title: "Network maintenance", Message: "Router firmware", Status: "scheduled", Revision: 1,
					ScheduledStart: now.Add(48 * time.Hour), ScheduledEnd: now.Add(50 * time.Hour), UpdatedAt: at(3 * time.Hour)},
			}},
		Resolved: []statusview.Incident{{IncidentState: domain.IncidentState{IncidentID: "inc-old", Title: "Slow sign-in", Message: "Fixed",
			Severity: "minor", Status: "resolved", Revision: 2, CreatedAt: at(50 * time.Hour), UpdatedAt: at(49 * time.Hour)}}},
		Completed: []statusview.Maintenance{{MaintenanceID: "m-done", Title: "Certificate rotation", Status: "completed", Revision: 3,
			ScheduledStart: at(80 * time.Hour), ScheduledEnd: at(79 * time.Hour), UpdatedAt: at(79 * time.Hour)}},
		Timelines: map[string][]statusview.IncidentUpdate{
			"inc-open": {
				{Revision: 1, Status: "investigating", Message: "Looking into <b>errors</b>\nsecond line", Severity: "major", OccurredAt: at(2 * time.Hour)},
				{Revision: 2, Status: "identified", Message: "We found it", Severity: "major", OccurredAt: at(time.Hour)},
			},
			"inc-old": {
				{Revision: 1, Status: "investigating", Message: "Sign-in is slow", Severity: "minor", OccurredAt: at(50 * time.Hour)},
				{Revision: 2, Status: "resolved", Message: "Fixed", Severity: "minor", OccurredAt: at(49 * time.Hour)},
			},
		},
		Since: statusHistoryStart(now),
	}
	return s
}

func renderPage(t *testing.T, s publicStatus, now time.Time) string {
	t.Helper()
	var buf bytes.Buffer
	if err := statusPages.ExecuteTemplate(&buf, "page", s.view(now)); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("STATUS_PAGE_SAMPLES"); dir != "" { // to look at them in a browser
		_ = os.WriteFile(filepath.Join(dir, "status-"+s.Page.Status+".html"), buf.Bytes(), 0o644)
	}
	return buf.String()
}

func TestStatusPageRendersEscaped(t *testing.T) {
	now := time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)
	html := renderPage(t, sampleStatus(now), now)
	for _, want := range []string{
		"Some systems are degraded", "1 open incident · 1 component degraded · 1 maintenance window in progress",
		`Errors &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#34;quotes&#34;`, "Looking into &lt;b&gt;errors&lt;/b&gt;\nsecond line",
		"Identified", "Major impact", "affects Database", "Database upgrade", "In progress", "Network maintenance", "Scheduled",
		"<h3>Core</h3>", "<h3>Edge</h3>", "Slow sign-in", "Certificate rotation", "No incidents reported.", `href="/feed.atom"`,
		`id="incident-inc-open"`, `<a class="badge sev-major" href="#incident-inc-open">Major impact</a>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(html, "<script") || strings.Contains(html, "<b>") {
		t.Errorf("markup from the data reached the page:\n%s", html)
	}
	// The newest update comes first.
	if strings.Index(html, "We found it") > strings.Index(html, "Looking into") {
		t.Error("the timeline is not newest first")
	}
	// The resolved incident is under its day (two days ago), the completed
	// window under its own (three days ago), today has nothing.
	days := strings.Split(html, `<div class="day">`)[1:]
	if len(days) != statusHistoryDays {
		t.Fatalf("%d days of history, want %d", len(days), statusHistoryDays)
	}
	if !strings.Contains(days[0], "Thu, 14 May 2026") || !strings.Contains(days[0], "No incidents reported.") ||
		!strings.Contains(days[2], "Slow sign-in") || !strings.Contains(days[3], "Certificate rotation") {
		t.Errorf("history days misplaced:\n%s\n%s\n%s", days[0], days[2], days[3])
	}
	// The inline style is exactly what the policy's hash allows.
	start, end := strings.Index(html, "<style>")+len("<style>"), strings.Index(html, "</style>")
	sum := sha256.Sum256([]byte(html[start:end]))
	if !strings.Contains(statusPageCSP, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
		t.Errorf("the inline style's hash is not in the policy %q", statusPageCSP)
	}

	// Nothing open: the good news.
	calm := publicStatus{Page: statusview.PublicPage{Status: "operational"}, Since: statusHistoryStart(now)}
	html = renderPage(t, calm, now)
	if !strings.Contains(html, "All systems operational") || strings.Contains(html, "Open incidents") || !strings.Contains(html, "No components are listed.") {
		t.Errorf("calm page:\n%s", html)
	}
}

func TestStatusFeedIsAtom(t *testing.T) {
	now := time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)
	s := sampleStatus(now)
	encode := func(f atomFeed) []byte {
		raw, err := xml.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	raw := encode(s.feed("org-1"))
	var got struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		ID      string   `xml:"id"`
		Title   string   `xml:"title"`
		Updated string   `xml:"updated"`
		Author  string   `xml:"author>name"`
		Entries []struct {
			ID      string `xml:"id"`
			Title   string `xml:"title"`
			Updated string `xml:"updated"`
			Content string `xml:"content"`
			Link    struct {
				Href string `xml:"href,attr"`
			} `xml:"link"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if !strings.HasPrefix(got.ID, "urn:uuid:") || got.Title == "" || got.Author == "" {
		t.Fatalf("feed head: %+v", got)
	}
	// 2 + 2 incident updates, 3 maintenance windows, newest first.
	if len(got.Entries) != 7 {
		t.Fatalf("%d entries: %s", len(got.Entries), raw)
	}
	if got.Updated != got.Entries[0].Updated {
		t.Errorf("feed updated %s, newest entry %s", got.Updated, got.Entries[0].Updated)
	}
	seen := map[string]bool{}
	for i, e := range got.Entries {
		if !strings.HasPrefix(e.ID, "urn:uuid:") || seen[e.ID] || e.Title == "" || e.Updated == "" || e.Link.Href == "" {
			t.Errorf("entry %d: %+v", i, e)
		}
		seen[e.ID] = true
		if i > 0 && e.Updated > got.Entries[i-1].Updated {
			t.Errorf("entries not newest first at %d", i)
		}
	}
	if !strings.Contains(string(raw), "Looking into &lt;b&gt;errors&lt;/b&gt;") {
		t.Errorf("update text not escaped in the feed: %s", raw)
	}
	// Ids stay: another request, later, with one more update, keeps every
	// earlier entry's id.
	s.Timelines["inc-open"] = append(s.Timelines["inc-open"], statusview.IncidentUpdate{Revision: 3, Status: "monitoring",
		Message: "A fix is out", Severity: "major", OccurredAt: now})
	again := string(encode(s.feed("org-1")))
	for id := range seen {
		if !strings.Contains(again, "<id>"+id+"</id>") {
			t.Errorf("entry id %s changed between requests", id)
		}
	}
	if !strings.Contains(again, "<id>"+got.ID+"</id>") {
		t.Error("the feed id changed")
	}
	if strings.Contains(string(encode(s.feed("org-2"))), "<id>"+got.ID+"</id>") {
		t.Error("two organizations share a feed id")
	}
}

func TestStatusPageWithoutOrganizationIs404(t *testing.T) {
	srv := mux.NewRouter()
	statusPageRoutes(Deps{})(srv)
	for _, path := range []string{"/", "/feed.atom"} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusNotFound {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		if path == "/" && (!strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") ||
			!strings.Contains(rec.Body.String(), "No public status page") || rec.Header().Get("Content-Security-Policy") != statusPageCSP) {
			t.Fatalf("%s: %v %s", path, rec.Header(), rec.Body)
		}
	}
}
