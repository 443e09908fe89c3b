package studio

import (
	"encoding/json"
	"slices"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/jobs"
)

// A platform render (provider "platform", the default) is a durable job
// of the job kernel (kind KindRender, id the render job's id, input the
// render job as created): its render status follows the kernel job's
// state (RenderJobOf), and a report on it (projects.render_jobs.update,
// cancel) goes to the kernel job (PlatformReport, RenderGuard). A render
// job of any other provider is an external renderer's, which reports
// through projects.render_jobs.update on the render job's own stream
// (RenderJobModel.Report). Both follow the one render machine.

// KindRender is the platform render's kind of job.
const KindRender = "studio.render"

// Platform reports a render job the platform's workers render.
func (j RenderJob) Platform() bool { return j.Provider == DefaultRenderProvider }

// RenderOutput is a platform render's result: the output asset it stored.
type RenderOutput struct {
	AssetID string `json:"asset_id"`
}

// Failure codes of a platform render.
const (
	// RenderUnrenderable: the composition cannot be drawn (an asset of the
	// wrong kind, an unreadable font): the same attempt would fail the same
	// way.
	RenderUnrenderable = "unrenderable"
	// RenderMissing: the composition version is gone.
	RenderMissing = "composition_missing"
	// JobTargetGone: a job's project or workspace is gone (deleted,
	// erased) before its output was recorded (renders and generations).
	JobTargetGone = "project_gone"
	// RenderFailedCode: ffmpeg or the store failed (retried by the policy),
	// or a renderer reported a failure.
	RenderFailedCode = "render_failed"
)

// RenderJobOf is a platform render job as its kernel job leaves it: queued
// while the job is queued (or failed with the policy's retry on its way),
// rendering while an attempt runs (or its outcome is being probed),
// completed with the output asset, failed for good (its reason, else its
// code), cancelled. created is the render job as requested.
func RenderJobOf(created RenderJob, j jobs.Job) RenderJob {
	r := created
	r.Attempts, r.Progress, r.StartedAt = j.Attempt, j.Progress, j.StartedAt
	r.FailureReason, r.FailureCode, r.OutputAssetID, r.CompletedAt = nil, nil, nil, nil
	if !j.UpdatedAt.IsZero() {
		r.UpdatedAt = j.UpdatedAt
	}
	switch j.State {
	case jobs.Queued:
		r.RenderStatus, r.Progress = RenderQueued, 0
	case jobs.Running, jobs.Unconfirmed:
		r.RenderStatus = RenderRendering
	case jobs.Succeeded:
		var out RenderOutput
		_ = json.Unmarshal(j.Result, &out)
		r.RenderStatus, r.Progress, r.CompletedAt = RenderCompleted, 100, j.FinishedAt
		if out.AssetID != "" {
			r.OutputAssetID = &out.AssetID
		}
	case jobs.Failed:
		if j.Failure != nil && j.Failure.RetryAt != nil {
			r.RenderStatus, r.Progress = RenderQueued, 0 // the policy's retry is on its way
			break
		}
		reason, code := DefaultFailureReason, RenderFailedCode
		if j.Failure != nil {
			code = j.Failure.Code
			reason = code
			if j.Failure.Reason != "" {
				reason = j.Failure.Reason
			}
		}
		r.RenderStatus, r.FailureReason, r.FailureCode, r.CompletedAt = RenderFailed, &reason, &code, j.FinishedAt
	case jobs.Cancelled:
		r.RenderStatus, r.CompletedAt = RenderCancelled, j.FinishedAt
	}
	return r
}

// PlatformMove is what a report on a platform render asks of its kernel
// job: exactly one of cancel, complete with an output asset, fail with a
// reason.
type PlatformMove struct {
	To      string // the render status reported
	Cancel  bool
	AssetID string // completed
	Reason  string // failed
}

// PlatformReport reads a report on a platform render (cur: as its kernel job
// leaves it) on the render machine's terms (the same 422s and 409s as an
// external renderer's). What may be reported is an outcome: completed with
// the output asset (an asset of the workspace: the caller checks) or
// failed, of a rendering job's attempt, and cancelled; rendering, queued
// and progress are the platform workers' own (409 invalid_transition).
func PlatformReport(cur RenderJob, r RenderReport) (PlatformMove, error) {
	to, err := r.check(cur)
	if err != nil {
		return PlatformMove{}, err
	}
	if to != RenderCancelled && to != cur.RenderStatus && (to == RenderCompleted || to == RenderFailed) && cur.RenderStatus != RenderRendering {
		return PlatformMove{}, invalidTransition("platform render", cur.RenderStatus, to)
	}
	switch to {
	case RenderCancelled:
		return PlatformMove{To: to, Cancel: true}, nil
	case RenderCompleted:
		asset := ""
		if r.OutputAssetID != nil {
			asset = *r.OutputAssetID
		}
		return PlatformMove{To: to, AssetID: asset}, nil
	case RenderFailed:
		reason := DefaultFailureReason
		if r.FailureReason != nil && trim(*r.FailureReason) != "" {
			reason = trim(*r.FailureReason)
		}
		return PlatformMove{To: to, Reason: reason}, nil
	}
	return PlatformMove{}, errs.Conflict("invalid_transition", "a platform render's progress is its workers' to report: "+
		"report completed (with its output asset), failed or cancelled")
}

// RenderGuard checks, on the kernel job as it is (under its stream's
// lock), that a platform render may still move to status to: a terminal
// render (a failed one included, which the kernel would let a person
// retry) stays so.
func RenderGuard(created RenderJob, to string) func(jobs.Job) error {
	return func(j jobs.Job) error {
		from := RenderJobOf(created, j).RenderStatus
		// An outcome settles a running attempt: a queued platform render
		// has none (it may be cancelled).
		attempt := to == RenderCancelled || from == RenderRendering
		if Terminal(from) || !slices.Contains(renderMoves[from], to) || !attempt {
			return invalidTransition("render", from, to)
		}
		return nil
	}
}
