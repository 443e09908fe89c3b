package design

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/platform/backend/domain/errs"
	domjobs "github.com/platform/backend/domain/jobs"
)

// Export formats (seed 000).
const (
	FormatSVG  = "svg"
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
	FormatMP4  = "mp4"
)

// Formats are the export formats.
var Formats = []string{FormatSVG, FormatPNG, FormatJPEG, FormatMP4}

// ContentTypes are the exports' media types, and Extensions their files'.
var (
	ContentTypes = map[string]string{FormatSVG: "image/svg+xml", FormatPNG: "image/png", FormatJPEG: "image/jpeg", FormatMP4: "video/mp4"}
	Extensions   = map[string]string{FormatSVG: ".svg", FormatPNG: ".png", FormatJPEG: ".jpg", FormatMP4: ".mp4"}
)

// Bounds of an export.
const (
	MinScale       = 0.1
	MaxScale       = 4.0
	MaxImagePixels = 8192 * 8192 // png and jpeg
	MaxVideoPixels = 3840 * 2160 // mp4 (internal/media's frame bound)
	DefaultQuality = 90
)

// KindExport is the export job's kind (the job kernel's).
const KindExport = "design.export"

// ExportRequest is designs.exports.create's input, checked.
type ExportRequest struct {
	Format string
	// PageID is the page a still format shows (default: the first); an
	// mp4 plays every page in order.
	PageID *string
	// AtMs is the time of the page a still shows (default 0).
	AtMs int
	// Scale multiplies the design's size (default 1).
	Scale float64
	// Quality is a jpeg's (1..100, default 90).
	Quality int
}

// ExportJob is an export job's input (it rides on every job event: small,
// references only): what to render, of which revision, for whom.
type ExportJob struct {
	DesignID    string  `json:"design_id"`
	ProjectID   string  `json:"project_id"`
	WorkspaceID string  `json:"workspace_id"`
	Revision    int     `json:"revision"`
	Format      string  `json:"format"`
	PageID      string  `json:"page_id,omitempty"`
	AtMs        int     `json:"at_ms,omitempty"`
	Scale       float64 `json:"scale"`
	Quality     int     `json:"quality,omitempty"`
	CreatedBy   string  `json:"created_by"`
}

// ExportResult is what a succeeded export stored.
type ExportResult struct {
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	// DurationMs and Frames are an mp4's.
	DurationMs int `json:"duration_ms,omitempty"`
	Frames     int `json:"frames,omitempty"`
}

// Plan checks an export of a design (at its current revision) and makes
// its job's input: 422 at the member's pointer for a page the design does
// not have, a time outside it, a size beyond the format's bound.
func Plan(d Design, r ExportRequest, createdBy string) (ExportJob, error) {
	var f fields
	f.oneOf("/format", r.Format, Formats)
	if r.Scale == 0 {
		r.Scale = 1
	}
	f.between("/scale", r.Scale, MinScale, MaxScale)
	if r.Quality == 0 && r.Format == FormatJPEG {
		r.Quality = DefaultQuality
	}
	if r.Quality != 0 && (r.Format != FormatJPEG || r.Quality < 1 || r.Quality > 100) {
		f.add("/quality", "only a jpeg has a quality, 1 to 100")
	}
	job := ExportJob{DesignID: d.DesignID, ProjectID: d.ProjectID, WorkspaceID: d.WorkspaceID, Revision: d.Revision, Format: r.Format,
		Scale: r.Scale, Quality: r.Quality, CreatedBy: createdBy}
	if r.Format == FormatMP4 {
		if r.PageID != nil || r.AtMs != 0 {
			f.add("/pageId", "an mp4 plays every page: it takes no page or time")
		}
	} else {
		page := d.Pages[0]
		if r.PageID != nil {
			p, ok := d.Page(*r.PageID)
			if !ok {
				f.add("/pageId", "no such page in the design")
			}
			page = p
		}
		job.PageID = page.PageID
		if r.AtMs < 0 || page.PageID != "" && r.AtMs > page.DurationMs {
			f.add("/atMs", "must be within the page's duration")
		}
		job.AtMs = r.AtMs
	}
	w, h := Size(d.Content, job.Scale, r.Format)
	switch {
	case r.Format == FormatMP4 && w*h > MaxVideoPixels:
		f.add("/scale", "the mp4's frames would be larger than 3840x2160 pixels")
	case r.Format != FormatMP4 && w*h > MaxImagePixels:
		f.add("/scale", "the image would be larger than 8192x8192 pixels")
	case w < 1 || h < 1:
		f.add("/scale", "the export would be empty")
	}
	return job, f.err()
}

// Size is an export's frame in pixels: the design's size scaled, rounded;
// even for an mp4 (yuv420p halves both sides for colour).
func Size(c Content, scale float64, format string) (int, int) {
	w, h := int(float64(c.Width)*scale+0.5), int(float64(c.Height)*scale+0.5)
	if format == FormatMP4 {
		w, h = w/2*2, h/2*2
	}
	return w, h
}

// Export statuses, from the job's state: queued, rendering, ready, failed,
// cancelled. Ready is seed 000's: persisted and its content stored.
const (
	ExportQueued    = "queued"
	ExportRendering = "rendering"
	ExportReady     = "ready"
	ExportFailed    = "failed"
	ExportCancelled = "cancelled"
)

var statuses = map[string]string{domjobs.Queued: ExportQueued, domjobs.Running: ExportRendering, domjobs.Unconfirmed: ExportRendering,
	domjobs.Succeeded: ExportReady, domjobs.Failed: ExportFailed, domjobs.Cancelled: ExportCancelled}

// StatusOf is an export's status from its job's state.
func StatusOf(jobState string) string {
	if s, ok := statuses[jobState]; ok {
		return s
	}
	return ExportQueued
}

// ExportStatuses are the statuses, for schemas.
var ExportStatuses = []string{ExportQueued, ExportRendering, ExportReady, ExportFailed, ExportCancelled}

// ErrExportNotReady answers a download of an export not ready yet.
var ErrExportNotReady = errs.Conflict("export_not_ready", "the export is not ready")

// Filename is an export's download name.
func Filename(designName, exportID, format string) string {
	return fmt.Sprintf("%s-%s%s", safeName(designName), exportID[max(0, len(exportID)-8):], Extensions[format])
}

// safeName keeps a file name's letters, digits, '-' and '_' (a space is '-').
func safeName(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			out = append(out, r)
		case r == ' ':
			out = append(out, '-')
		}
		if len(out) >= 60 {
			break
		}
	}
	if len(out) == 0 {
		return "design"
	}
	return string(out)
}

// Export is an export as the API answers it: what was asked, and its job's
// state in the seed's words.
type Export struct {
	ExportID    string      `json:"exportId"`
	DesignID    string      `json:"designId"`
	ProjectID   string      `json:"projectId"`
	WorkspaceID string      `json:"workspaceId"`
	Format      string      `json:"format"`
	PageID      *string     `json:"pageId"`
	AtMs        int         `json:"atMs"`
	Scale       float64     `json:"scale"`
	Quality     *int        `json:"quality"`
	Revision    int         `json:"revision"`
	Status      string      `json:"status"`
	Progress    int         `json:"progress"`
	Attempts    int         `json:"attempts"`
	Failure     *Failure    `json:"failure"`
	File        *ExportFile `json:"file"`
	CreatedBy   string      `json:"createdBy"`
	CreatedAt   time.Time   `json:"createdAt"`
	UpdatedAt   time.Time   `json:"updatedAt"`
	ReadyAt     *time.Time  `json:"readyAt"`
}

// Failure is why an export failed (its last attempt's).
type Failure struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// ExportFile is a ready export's file.
type ExportFile struct {
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	DurationMs  *int   `json:"durationMs"`
	Frames      *int   `json:"frames"`
}

// ExportOf is an export job as the API answers it.
func ExportOf(j domjobs.Job) (Export, error) {
	var in ExportJob
	if err := json.Unmarshal(j.Input, &in); err != nil {
		return Export{}, err
	}
	e := Export{ExportID: j.ID, DesignID: in.DesignID, ProjectID: in.ProjectID, WorkspaceID: in.WorkspaceID, Format: in.Format,
		AtMs: in.AtMs, Scale: in.Scale, Revision: in.Revision, Status: StatusOf(j.State), Progress: j.Progress, Attempts: j.Attempt,
		CreatedBy: in.CreatedBy, CreatedAt: j.RequestedAt, UpdatedAt: j.UpdatedAt}
	if in.PageID != "" {
		e.PageID = &in.PageID
	}
	if in.Quality != 0 {
		e.Quality = &in.Quality
	}
	if j.Failure != nil && j.State != domjobs.Succeeded {
		e.Failure = &Failure{Code: j.Failure.Code, Reason: j.Failure.Reason}
	}
	if j.State == domjobs.Succeeded {
		var r ExportResult
		if err := json.Unmarshal(j.Result, &r); err != nil {
			return Export{}, err
		}
		f := &ExportFile{ContentType: r.ContentType, Size: r.Size, SHA256: r.SHA256, Width: r.Width, Height: r.Height}
		if in.Format == FormatMP4 {
			f.DurationMs, f.Frames = &r.DurationMs, &r.Frames
		}
		e.File, e.ReadyAt = f, j.FinishedAt
	}
	return e, nil
}
