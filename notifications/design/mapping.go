// Package design maps the design service's events to seed 000's one
// contract, design.export.ready: emitted when an export job succeeded, that
// is when the export, persisted at its request, has its content stored.
// The key is the export's (design:export:ready:<export id>), so a
// redelivered event, a second success (there is none: succeeded is
// terminal) or a rebuild emits it once.
package design

import (
	"net/url"
	"strings"

	domain "github.com/platform/backend/domain/design"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications"
)

// formatNames are the formats as a sentence names them.
var formatNames = map[string]string{domain.FormatSVG: "SVG", domain.FormatPNG: "PNG", domain.FormatJPEG: "JPEG", domain.FormatMP4: "MP4"}

// Mapping maps design events; appURL is DESIGN_APP_URL, where cta_url opens
// the design (its web component's page of the design).
func Mapping(appURL string) notifications.Mapping {
	types := domjobs.TypesOf("design")
	m := notifications.Mapping{
		types.Succeeded: notifications.MapAs(func(e eventstore.Event, p domjobs.Event) ([]notifications.Notification, error) {
			j := p.Job
			if j.Kind != domain.KindExport {
				return nil, nil
			}
			x, err := domain.ExportOf(j)
			if err != nil {
				return nil, err
			}
			at := e.OccurredAt
			if j.FinishedAt != nil {
				at = *j.FinishedAt
			}
			return notifications.One("design.export.ready", "design:export:ready:"+x.ExportID, map[string]any{
				"title": "Export ready", "body": "Your " + formatNames[x.Format] + " export is ready to download.",
				"object_id": x.ExportID, "occurred_at": notifications.Timestamp(at), "project_id": x.ProjectID, "export_id": x.ExportID,
				"format": x.Format, "surface": "notification", "priority": "normal", "severity": "success", "category": "design",
				"object_type": "design_export", "cta_url": DesignURL(appURL, x.WorkspaceID, x.DesignID), "cta_label": "Open the design",
			}), nil
		}),
	}
	for _, t := range append(domain.EventTypes, domjobs.EventTypes("design")...) {
		if _, ok := m[t]; !ok {
			m[t] = notifications.Silent
		}
	}
	return m
}

// DesignURL is the web component's page of a design.
func DesignURL(appURL, workspaceID, designID string) string {
	return strings.TrimRight(appURL, "/") + "/app/designs/" + url.PathEscape(designID) + "?workspace=" + url.QueryEscape(workspaceID)
}
