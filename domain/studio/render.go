package studio

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Render statuses (seed 002): queued -> rendering -> completed | failed |
// cancelled. A terminal status stays terminal (409 invalid_transition).
const (
	RenderQueued    = "queued"
	RenderRendering = "rendering"
	RenderCompleted = "completed"
	RenderFailed    = "failed"
	RenderCancelled = "cancelled"
)

var RenderStatuses = []string{RenderQueued, RenderRendering, RenderCompleted, RenderFailed, RenderCancelled}

// OutputFormats of a render (seed 002); png_sequence is a zip of frames.
var OutputFormats = []string{"mp4", "mov", "png_sequence", "gif"}

// renderMoves is the render machine: from a status, the statuses a report
// may set. rendering -> rendering is a progress report; rendering -> queued
// gives a job back (its worker was lost) for another attempt. Terminal
// statuses have no moves.
var renderMoves = map[string][]string{
	RenderQueued:    {RenderRendering, RenderFailed, RenderCancelled},
	RenderRendering: {RenderRendering, RenderQueued, RenderCompleted, RenderFailed, RenderCancelled},
}

// Terminal reports a status that never changes again.
func Terminal(status string) bool {
	return status == RenderCompleted || status == RenderFailed || status == RenderCancelled
}

// DefaultRenderProvider renders on the platform's own workers.
const DefaultRenderProvider = "platform"

// RenderJob is one render of a composition version.
type RenderJob struct {
	RenderJobID          string  `json:"renderJobId"`
	ProjectID            string  `json:"projectId"`
	WorkspaceID          string  `json:"workspaceId"`
	CompositionVersionID string  `json:"compositionVersionId"`
	Provider             string  `json:"provider"`
	OutputFormat         string  `json:"outputFormat"`
	Priority             int     `json:"priority"`
	RenderStatus         string  `json:"renderStatus"`
	Progress             int     `json:"progress"`
	Attempts             int     `json:"attempts"`
	FailureReason        *string `json:"failureReason"`
	// FailureCode is a failed platform render's stable word (unrenderable,
	// render_failed, lost, ...); null otherwise.
	FailureCode   *string    `json:"failureCode"`
	OutputAssetID *string    `json:"outputAssetId"`
	StartedAt     *time.Time `json:"startedAt"`
	CompletedAt   *time.Time `json:"completedAt"`
	CreatedBy     string     `json:"createdBy"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
}

// RenderJobModel is the write model of one render job stream.
type RenderJobModel struct{ j RenderJob }

func LoadRenderJob(history []event.Recorded) (*RenderJobModel, error) {
	return renderFold.Load(&RenderJobModel{}, history)
}

var renderFold = event.Fold[*RenderJobModel]{
	RenderJobCreated:   event.Apply((*RenderJobModel).set),
	RenderJobUpdated:   event.Apply((*RenderJobModel).set),
	RenderJobCancelled: event.Apply((*RenderJobModel).set),
}

func (m *RenderJobModel) set(p RenderJobV1) { m.j = p.Job }

func (m *RenderJobModel) Exists() bool     { return m.j.RenderJobID != "" }
func (m *RenderJobModel) State() RenderJob { return m.j }

// In reports whether the job belongs to the project in the workspace.
func (m *RenderJobModel) In(workspaceID, projectID string) error {
	if !m.Exists() || m.j.WorkspaceID != workspaceID || m.j.ProjectID != projectID {
		return errs.NotFound("render job")
	}
	return nil
}

// NewRenderJob is the input of projects.render_jobs.create.
type NewRenderJob struct {
	ID, ProjectID, WorkspaceID, CompositionVersionID, CreatedBy string
	Provider                                                    string // default platform
	OutputFormat                                                string // default mp4
	Priority                                                    int
	Quota                                                       *QuotaClaim
}

// Create queues a render.
func (m *RenderJobModel) Create(n NewRenderJob, now time.Time) ([]event.Change, error) {
	if n.Provider == "" {
		n.Provider = DefaultRenderProvider
	}
	if n.OutputFormat == "" {
		n.OutputFormat = "mp4"
	}
	var f fields
	f.title("/provider", n.Provider)
	f.oneOf("/outputFormat", n.OutputFormat, OutputFormats)
	if n.Priority < 0 || n.Priority > MaxPriority {
		f.add("/priority", "must be 0 to %d", MaxPriority)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if m.Exists() {
		return nil, errs.Conflict("render_job_exists", "the render job already exists")
	}
	j := RenderJob{RenderJobID: n.ID, ProjectID: n.ProjectID, WorkspaceID: n.WorkspaceID, CompositionVersionID: n.CompositionVersionID,
		Provider: trim(n.Provider), OutputFormat: n.OutputFormat, Priority: n.Priority, RenderStatus: RenderQueued,
		CreatedBy: n.CreatedBy, CreatedAt: now, UpdatedAt: now}
	return []event.Change{event.New(RenderJobCreated, RenderJobV1{Job: j, Quota: n.Quota})}, nil
}

// RenderReport is projects.render_jobs.update: how a renderer (ours or an
// external one) reports. Nil members are not reported.
type RenderReport struct {
	RenderStatus  *string
	Progress      *int
	FailureReason *string
	OutputAssetID *string
	StartedAt     *time.Time
	CompletedAt   *time.Time
}

// DefaultFailureReason is a failure reported without a reason.
const DefaultFailureReason = "render_failed"

// check validates a report on a job as it is and answers the status it
// moves to: 422 for members that do not go together, 409
// invalid_transition for a terminal job or a move the machine has not.
func (r RenderReport) check(cur RenderJob) (string, error) {
	to := cur.RenderStatus
	if r.RenderStatus != nil {
		to = *r.RenderStatus
	}
	var f fields
	f.oneOf("/renderStatus", to, RenderStatuses)
	if r.Progress != nil && (*r.Progress < 0 || *r.Progress > 100) {
		f.add("/progress", "must be 0 to 100")
	}
	if r.FailureReason != nil {
		trimmed := trim(*r.FailureReason)
		r.FailureReason = &trimmed
		f.line("/failureReason", r.FailureReason, MaxReason)
		if to != RenderFailed {
			f.add("/failureReason", "only a failed render has a failure reason")
		}
	}
	if r.OutputAssetID != nil && to != RenderCompleted {
		f.add("/outputAssetId", "only a completed render has an output asset")
	}
	if to == RenderCompleted && r.OutputAssetID == nil && cur.OutputAssetID == nil {
		f.add("/outputAssetId", "a completed render names its output asset")
	}
	if r.StartedAt != nil && r.CompletedAt != nil && r.CompletedAt.Before(*r.StartedAt) {
		f.add("/completedAt", "must not be before startedAt")
	}
	if err := f.err(); err != nil {
		return "", err
	}
	from := cur.RenderStatus
	if Terminal(from) {
		return "", invalidTransition("render", from, to)
	}
	if to != from || r.RenderStatus != nil && to == RenderRendering {
		if !slices.Contains(renderMoves[from], to) {
			return "", invalidTransition("render", from, to)
		}
	}
	return to, nil
}

// Report moves the job along the render machine. A terminal job refuses
// every report (409 invalid_transition); entering rendering counts an
// attempt; completed needs the output asset (the caller checked it is an
// asset of the workspace) and sets progress 100; a failure reason goes
// only with failed, an output only with completed. (An external
// renderer's job: a platform render follows its kernel job, PlatformReport.)
func (m *RenderJobModel) Report(r RenderReport, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("render job")
	}
	to, err := r.check(m.j)
	if err != nil {
		return nil, err
	}
	from := m.j.RenderStatus
	next := m.j
	next.RenderStatus = to
	switch {
	case to == RenderRendering && from != RenderRendering:
		next.Attempts++
		next.Progress = 0
		next.StartedAt = at(r.StartedAt, now)
	case to == RenderQueued && from == RenderRendering:
		next.Progress, next.StartedAt = 0, nil
	case to == RenderCompleted:
		next.Progress, next.OutputAssetID = 100, r.OutputAssetID
		next.CompletedAt = at(r.CompletedAt, now)
	case to == RenderFailed:
		reason := DefaultFailureReason
		if r.FailureReason != nil && trim(*r.FailureReason) != "" {
			reason = trim(*r.FailureReason)
		}
		next.FailureReason, next.CompletedAt = &reason, at(r.CompletedAt, now)
	case to == RenderCancelled:
		next.CompletedAt = at(r.CompletedAt, now)
	}
	if r.StartedAt != nil && to == RenderRendering {
		next.StartedAt = r.StartedAt
	}
	if r.Progress != nil && to == RenderRendering {
		next.Progress = *r.Progress
	}
	if same(next, m.j) {
		return nil, nil
	}
	next.UpdatedAt = now
	typ := RenderJobUpdated
	if to == RenderCancelled {
		typ = RenderJobCancelled
	}
	return []event.Change{event.New(typ, RenderJobV1{Job: next})}, nil
}

// Cancel is projects.render_jobs.cancel: a queued or rendering job stops
// for good (409 invalid_transition once terminal).
func (m *RenderJobModel) Cancel(now time.Time) ([]event.Change, error) {
	s := RenderCancelled
	return m.Report(RenderReport{RenderStatus: &s}, now)
}

func at(t *time.Time, now time.Time) *time.Time {
	if t != nil {
		v := t.UTC()
		return &v
	}
	return &now
}
