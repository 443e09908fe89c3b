package status

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
	httpapi "github.com/platform/backend/http"
	statusview "github.com/platform/backend/projections/status"
)

// GET /feed.atom: the public organization's incidents and maintenance as an
// Atom 1.0 feed (RFC 4287). One entry per incident update (each revision of
// the timeline, never rewritten) and one per maintenance window (updated as
// it is started and completed), of open incidents, scheduled and running
// maintenance, and what ended in the last statusHistoryDays days. Entry ids
// are name-based UUIDs (urn:uuid:, v5) of the incident and revision or of
// the maintenance window: the same on every request and every replica.
// Links are relative to the feed (/#incident-<id>), so the feed needs no
// configured public address and takes none from the Host header.

// statusFeedNamespace names the feed's v5 UUIDs.
var statusFeedNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("urn:platform:status:feed"))

type (
	atomFeed struct {
		XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
		ID      string      `xml:"id"`
		Title   atomText    `xml:"title"`
		Sub     *atomText   `xml:"subtitle,omitempty"`
		Updated string      `xml:"updated"`
		Links   []atomLink  `xml:"link"`
		Author  atomPerson  `xml:"author"`
		Gen     string      `xml:"generator,omitempty"`
		Entries []atomEntry `xml:"entry"`
	}
	atomText struct {
		Type string `xml:"type,attr,omitempty"`
		Body string `xml:",chardata"`
	}
	atomLink struct {
		Rel  string `xml:"rel,attr,omitempty"`
		Type string `xml:"type,attr,omitempty"`
		Href string `xml:"href,attr"`
	}
	atomPerson struct {
		Name string `xml:"name"`
	}
	atomCategory struct {
		Term  string `xml:"term,attr"`
		Label string `xml:"label,attr,omitempty"`
	}
	atomEntry struct {
		ID         string         `xml:"id"`
		Title      atomText       `xml:"title"`
		Updated    string         `xml:"updated"`
		Published  string         `xml:"published,omitempty"`
		Links      []atomLink     `xml:"link"`
		Categories []atomCategory `xml:"category"`
		Content    atomText       `xml:"content"`

		at time.Time // for ordering
	}
)

func atomTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func statusFeedID(name string) string {
	return "urn:uuid:" + uuid.NewSHA1(statusFeedNamespace, []byte(name)).String()
}

// feed builds the Atom document of what the page shows.
func (s publicStatus) feed(org string) atomFeed {
	f := atomFeed{
		ID:      statusFeedID("organization:" + org),
		Title:   atomText{Type: "text", Body: statusPageTitle + ": incidents and maintenance"},
		Sub:     &atomText{Type: "text", Body: "Every incident update and maintenance window of the status page."},
		Links:   []atomLink{{Rel: "self", Type: "application/atom+xml", Href: "/feed.atom"}, {Rel: "alternate", Type: "text/html", Href: "/"}},
		Author:  atomPerson{Name: statusPageTitle},
		Gen:     "platform status service",
		Entries: []atomEntry{},
	}
	type incident struct {
		id, title, severity string
		component           *string
	}
	incidents := make([]incident, 0, len(s.Page.Incidents)+len(s.Resolved))
	for _, i := range s.Page.Incidents {
		incidents = append(incidents, incident{i.IncidentID, i.Title, i.Severity, i.ComponentName})
	}
	for _, i := range s.Resolved {
		incidents = append(incidents, incident{i.IncidentID, i.Title, i.Severity, i.ComponentName})
	}
	for _, i := range incidents {
		for _, u := range s.Timelines[i.id] {
			content := u.Message
			if i.component != nil {
				content += "\n\nAffects " + *i.component + "."
			}
			f.Entries = append(f.Entries, atomEntry{
				ID:         statusFeedID("incident:" + i.id + ":revision:" + strconv.Itoa(u.Revision)),
				Title:      atomText{Type: "text", Body: i.title + " — " + statusLabel(u.Status)},
				Updated:    atomTime(u.OccurredAt),
				Published:  atomTime(u.OccurredAt),
				Links:      []atomLink{{Rel: "alternate", Type: "text/html", Href: "/#incident-" + i.id}},
				Categories: []atomCategory{{Term: "incident", Label: "Incident"}, {Term: u.Severity, Label: severityLabel(u.Severity)}},
				Content:    atomText{Type: "text", Body: content},
				at:         u.OccurredAt,
			})
		}
	}
	maintenances := append(append([]statusview.Maintenance{}, s.Page.Maintenances...), s.Completed...)
	for _, m := range maintenances {
		content := "Scheduled " + statusWindow(m.ScheduledStart, m.ScheduledEnd) + "."
		if m.Message != "" {
			content = m.Message + "\n\n" + content
		}
		f.Entries = append(f.Entries, atomEntry{
			ID:         statusFeedID("maintenance:" + m.MaintenanceID),
			Title:      atomText{Type: "text", Body: "Maintenance: " + m.Title + " — " + maintenanceLabel(m.Status)},
			Updated:    atomTime(m.UpdatedAt),
			Links:      []atomLink{{Rel: "alternate", Type: "text/html", Href: "/#maintenance-" + m.MaintenanceID}},
			Categories: []atomCategory{{Term: "maintenance", Label: "Maintenance"}, {Term: m.Status, Label: maintenanceLabel(m.Status)}},
			Content:    atomText{Type: "text", Body: content},
			at:         m.UpdatedAt,
		})
	}
	sortedByTime(f.Entries, func(e atomEntry) time.Time { return e.at }, func(e atomEntry) string { return e.ID })
	// The feed changed when its newest entry did; an empty feed has a fixed
	// date, so that it looks unchanged to readers until something happens.
	updated := time.Unix(0, 0)
	if len(f.Entries) > 0 {
		updated = f.Entries[0].at
	}
	f.Updated = atomTime(updated)
	return f
}

// serveFeed answers GET /feed.atom, with an ETag of its body for readers
// that ask again with If-None-Match.
func (d Deps) serveFeed(w http.ResponseWriter, r *http.Request, limiter *httpapi.Limiter) {
	if err := limiter.Allow("ip:" + httpapi.ClientAddress(r)); err != nil {
		httpapi.WriteError(w, r, slog.Default(), err)
		return
	}
	if d.PublicOrganizationID == "" {
		httpapi.WriteError(w, r, slog.Default(), errs.NotFound("public status page"))
		return
	}
	s, err := d.readPublicStatus(r.Context(), time.Now())
	if err != nil {
		httpapi.WriteError(w, r, slog.Default(), err)
		return
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(s.feed(d.PublicOrganizationID)); err != nil {
		httpapi.WriteError(w, r, slog.Default(), err)
		return
	}
	buf.WriteByte('\n')
	sum := sha256.Sum256(buf.Bytes())
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	h := w.Header()
	h.Set("Content-Type", "application/atom+xml; charset=utf-8")
	h.Set("Cache-Control", statusPageCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}
