package status

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	httpapi "github.com/platform/backend/http"
	statusview "github.com/platform/backend/projections/status"
)

// The status page for people: GET / renders the public organization's page
// (STATUS_PUBLIC_ORGANIZATION_ID, what GET /api/status serves) as HTML that
// needs no script, and GET /feed.atom (feed.go) its incidents and
// maintenance as an Atom feed. Both show only what the public JSON page
// shows (component names, groups and states; incidents by component name),
// plus each incident's update timeline and what ended in the last
// statusHistoryDays days.

const (
	// statusHistoryDays: the page's recent history and the feed's window.
	statusHistoryDays = 14
	// statusHistoryLimit bounds the resolved incidents and the completed
	// maintenance windows one answer reads.
	statusHistoryLimit = 100
	// statusPageCacheControl: shared caches may keep an answer briefly; a
	// status page that lags a few seconds is fine, one that lags minutes is not.
	statusPageCacheControl = "public, max-age=30"
	statusPageTitle        = "Service status"
)

var (
	//go:embed page.html
	statusPageTemplate string
	//go:embed page.css
	statusPageCSS string

	statusPages = template.Must(template.New("status").Funcs(template.FuncMap{
		"when":             statusWhen,
		"clock":            func(t time.Time) string { return t.UTC().Format("15:04 UTC") },
		"iso":              func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"window":           statusWindow,
		"statusLabel":      statusLabel,
		"severityLabel":    severityLabel,
		"maintenanceLabel": maintenanceLabel,
		"componentLabel":   componentLabel,
	}).Parse(statusPageTemplate))

	// statusPageCSP allows nothing but the page's own inline style (by its
	// hash): no script, no frame, no form, no image, no fetch.
	statusPageCSP = func() string {
		sum := sha256.Sum256([]byte(statusPageCSS))
		return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
			"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	}()
)

// statusPageRoutes adds GET / (the page) and GET /feed.atom (the feed). Both
// are public; each client address has its own bucket, as for status.get.
func statusPageRoutes(d Deps) func(r *mux.Router) {
	limiter := httpapi.NewLimiter(httpapi.RateLimitConfig{})
	return func(r *mux.Router) {
		r.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
			d.servePage(w, req, limiter)
		}).Methods(http.MethodGet, http.MethodHead)
		r.HandleFunc("/feed.atom", func(w http.ResponseWriter, req *http.Request) {
			d.serveFeed(w, req, limiter)
		}).Methods(http.MethodGet, http.MethodHead)
	}
}

// publicStatus is what the page and the feed show.
type publicStatus struct {
	Page      statusview.PublicPage
	Resolved  []statusview.Incident    // resolved since Since, newest first
	Completed []statusview.Maintenance // completed since Since, newest first
	Timelines map[string][]statusview.IncidentUpdate
	Since     time.Time
}

// readPublicStatus reads the public organization's page with the queries of
// GET /api/status, plus the timelines and the recent history.
func (d Deps) readPublicStatus(ctx context.Context, now time.Time) (publicStatus, error) {
	org := d.PublicOrganizationID
	page, err := d.Queries.Page(ctx, org)
	if err != nil {
		return publicStatus{}, err
	}
	out := publicStatus{Page: page.Public(), Since: statusHistoryStart(now)}
	if out.Resolved, err = d.Queries.ResolvedSince(ctx, org, out.Since, statusHistoryLimit); err != nil {
		return publicStatus{}, err
	}
	if out.Completed, err = d.Queries.CompletedSince(ctx, org, out.Since, statusHistoryLimit); err != nil {
		return publicStatus{}, err
	}
	ids := make([]string, 0, len(out.Page.Incidents)+len(out.Resolved))
	for _, i := range out.Page.Incidents {
		ids = append(ids, i.IncidentID)
	}
	for _, i := range out.Resolved {
		ids = append(ids, i.IncidentID)
	}
	if out.Timelines, err = d.Queries.Timelines(ctx, org, ids); err != nil {
		return publicStatus{}, err
	}
	return out, nil
}

// statusHistoryStart is the first instant of the history: midnight UTC of
// the oldest of the statusHistoryDays days that end today.
func statusHistoryStart(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(statusHistoryDays - 1))
}

// The page's view: only strings and times a person reads.
type (
	statusPageView struct {
		CSS          template.CSS
		Title        string
		Overall      pageOverall
		Incidents    []pageIncident
		Maintenances []pageMaintenance
		Groups       []pageGroup
		Days         []pageDay
		HistoryDays  int
		Now          time.Time
	}
	pageOverall struct {
		State    string // operational, degraded, major_outage, maintenance
		Headline string
		Detail   string
	}
	pageIncident struct {
		ID, Title, Severity, Status, Component string
		CreatedAt, UpdatedAt                   time.Time
		Updates                                []pageUpdate // newest first
	}
	pageUpdate struct {
		Status, Message string
		At              time.Time
	}
	pageMaintenance struct {
		ID, Title, Message, Status string
		Start, End, UpdatedAt      time.Time
	}
	pageGroup struct {
		Name       string
		Components []pageComponent
	}
	pageComponent struct {
		Name, State string
		CheckedAt   *time.Time
		// Incident is the most severe open incident that names the
		// component (its state comes from checks alone).
		Incident *pageIncident
	}
	pageDay struct {
		Date         time.Time
		Incidents    []pageIncident
		Maintenances []pageMaintenance
	}
)

func (s publicStatus) view(now time.Time) statusPageView {
	v := statusPageView{CSS: template.CSS(statusPageCSS), Title: statusPageTitle, HistoryDays: statusHistoryDays, Now: now.UTC()}
	p := s.Page
	degraded := 0
	for _, c := range p.Components {
		if c.Status == "degraded" {
			degraded++
		}
		name := ""
		if c.Group != nil {
			name = *c.Group
		}
		if n := len(v.Groups); n == 0 || v.Groups[n-1].Name != name {
			v.Groups = append(v.Groups, pageGroup{Name: name})
		}
		g := &v.Groups[len(v.Groups)-1]
		g.Components = append(g.Components, pageComponent{Name: c.Name, State: c.Status, CheckedAt: c.UpdatedAt})
	}
	for _, i := range p.Incidents {
		v.Incidents = append(v.Incidents, pageIncident{ID: i.IncidentID, Title: i.Title, Severity: i.Severity, Status: i.Status,
			Component: deref(i.ComponentName), CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt, Updates: s.updates(i.IncidentID, i.Status, i.Message, i.UpdatedAt)})
	}
	for gi := range v.Groups {
		for ci := range v.Groups[gi].Components {
			c := &v.Groups[gi].Components[ci]
			for ii := range v.Incidents {
				inc := &v.Incidents[ii]
				if inc.Component == c.Name && (c.Incident == nil || severityRank[inc.Severity] > severityRank[c.Incident.Severity]) {
					c.Incident = inc
				}
			}
		}
	}
	running := 0
	for _, m := range p.Maintenances {
		if m.Status == "in_progress" {
			running++
		}
		v.Maintenances = append(v.Maintenances, pageMaintenance{ID: m.MaintenanceID, Title: m.Title, Message: m.Message, Status: m.Status,
			Start: m.ScheduledStart, End: m.ScheduledEnd, UpdatedAt: m.UpdatedAt})
	}
	v.Overall = overall(p.Status, len(p.Incidents), degraded, running)

	// The history: one entry per day, today first.
	for i := 0; i < statusHistoryDays; i++ {
		v.Days = append(v.Days, pageDay{Date: s.Since.AddDate(0, 0, statusHistoryDays-1-i)})
	}
	day := func(t time.Time) *pageDay {
		i := int(s.Since.AddDate(0, 0, statusHistoryDays-1).Sub(t.UTC().Truncate(24*time.Hour)) / (24 * time.Hour))
		if i < 0 || i >= len(v.Days) {
			return nil
		}
		return &v.Days[i]
	}
	for _, i := range s.Resolved {
		if d := day(i.UpdatedAt); d != nil {
			d.Incidents = append(d.Incidents, pageIncident{ID: i.IncidentID, Title: i.Title, Severity: i.Severity, Status: i.Status,
				Component: deref(i.ComponentName), CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt,
				Updates: s.updates(i.IncidentID, i.Status, i.Message, i.UpdatedAt)})
		}
	}
	for _, m := range s.Completed {
		if d := day(m.UpdatedAt); d != nil {
			d.Maintenances = append(d.Maintenances, pageMaintenance{ID: m.MaintenanceID, Title: m.Title, Message: m.Message,
				Status: m.Status, Start: m.ScheduledStart, End: m.ScheduledEnd, UpdatedAt: m.UpdatedAt})
		}
	}
	return v
}

// updates is an incident's timeline, newest first; an incident whose
// timeline is not (yet) in the read model shows its latest message.
func (s publicStatus) updates(id, status, message string, at time.Time) []pageUpdate {
	rows := s.Timelines[id]
	if len(rows) == 0 {
		return []pageUpdate{{Status: status, Message: message, At: at}}
	}
	out := make([]pageUpdate, 0, len(rows))
	for i := len(rows) - 1; i >= 0; i-- {
		out = append(out, pageUpdate{Status: rows[i].Status, Message: rows[i].Message, At: rows[i].OccurredAt})
	}
	return out
}

// overall words the page's state for a person.
func overall(state string, incidents, degraded, running int) pageOverall {
	o := pageOverall{State: state}
	switch state {
	case "operational":
		o.Headline = "All systems operational"
	case "maintenance":
		o.Headline = "Maintenance in progress"
	case "major_outage":
		o.Headline = "Major outage"
	default:
		o.State = "degraded"
		o.Headline = "Some systems are degraded"
	}
	var parts []string
	if incidents > 0 {
		parts = append(parts, plural(incidents, "open incident", "open incidents"))
	}
	if degraded > 0 {
		parts = append(parts, plural(degraded, "component degraded", "components degraded"))
	}
	if running > 0 && state != "maintenance" {
		parts = append(parts, plural(running, "maintenance window in progress", "maintenance windows in progress"))
	}
	o.Detail = strings.Join(parts, " · ")
	return o
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func statusWhen(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") }

// statusWindow writes a maintenance window: one date when it fits in a day.
func statusWindow(start, end time.Time) string {
	start, end = start.UTC(), end.UTC()
	if start.Format("2006-01-02") == end.Format("2006-01-02") {
		return start.Format("2 Jan 2006, 15:04") + " – " + end.Format("15:04 UTC")
	}
	return start.Format("2 Jan 2006, 15:04") + " – " + end.Format("2 Jan 2006, 15:04 UTC")
}

var (
	statusLabels = map[string]string{"investigating": "Investigating", "identified": "Identified", "monitoring": "Monitoring",
		"resolved": "Resolved"}
	severityRank      = map[string]int{"minor": 1, "major": 2, "critical": 3}
	severityLabels    = map[string]string{"minor": "Minor impact", "major": "Major impact", "critical": "Critical impact"}
	maintenanceLabels = map[string]string{"scheduled": "Scheduled", "in_progress": "In progress", "completed": "Completed"}
	componentLabels   = map[string]string{"operational": "Operational", "degraded": "Degraded"}
)

func label(m map[string]string, s string) string {
	if l, ok := m[s]; ok {
		return l
	}
	return s
}

func statusLabel(s string) string      { return label(statusLabels, s) }
func severityLabel(s string) string    { return label(severityLabels, s) }
func maintenanceLabel(s string) string { return label(maintenanceLabels, s) }
func componentLabel(s string) string   { return label(componentLabels, s) }

// servePage renders GET /.
func (d Deps) servePage(w http.ResponseWriter, r *http.Request, limiter *httpapi.Limiter) {
	if err := limiter.Allow("ip:" + httpapi.ClientAddress(r)); err != nil {
		statusPageError(w, r, err)
		return
	}
	if d.PublicOrganizationID == "" {
		writeStatusMissing(w, http.StatusNotFound, "No public status page",
			"This service has no public status page: no organization is configured to publish one (STATUS_PUBLIC_ORGANIZATION_ID).")
		return
	}
	now := time.Now()
	s, err := d.readPublicStatus(r.Context(), now)
	if err != nil {
		statusPageError(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := statusPages.ExecuteTemplate(&buf, "page", s.view(now)); err != nil {
		statusPageError(w, r, err)
		return
	}
	statusPageHeaders(w.Header(), statusPageCacheControl)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

func statusPageHeaders(h http.Header, cacheControl string) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", statusPageCSP)
	h.Set("Cache-Control", cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

// writeStatusMissing is the page's answer when there is nothing to show.
func writeStatusMissing(w http.ResponseWriter, status int, heading, text string) {
	var buf bytes.Buffer
	_ = statusPages.ExecuteTemplate(&buf, "missing", map[string]any{"CSS": template.CSS(statusPageCSS), "Heading": heading, "Text": text})
	statusPageHeaders(w.Header(), "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// statusPageError answers a person in HTML with the status a problem would
// carry (429 with Retry-After, 503, 500 logged; 499 to a client that left).
func statusPageError(w http.ResponseWriter, r *http.Request, err error) {
	status := httpapi.PageStatus(w, r, slog.Default(), err)
	if status == 0 {
		return
	}
	text := "The status page cannot be shown right now. Please try again in a moment."
	if status == http.StatusTooManyRequests {
		text = "Too many requests from your address. Please wait a moment and reload."
	}
	writeStatusMissing(w, status, http.StatusText(status), text)
}

// sortedByTime orders entries newest first, then by key, so that answers
// are stable.
func sortedByTime[T any](xs []T, at func(T) time.Time, key func(T) string) {
	sort.SliceStable(xs, func(i, j int) bool {
		ti, tj := at(xs[i]), at(xs[j])
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return key(xs[i]) < key(xs[j])
	})
}
