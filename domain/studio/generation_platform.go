package studio

import (
	"encoding/json"

	"github.com/platform/backend/domain/jobs"
)

// A generation request (scenes' candidates, a creative plan) is a durable
// job of the job kernel (kind KindGenerate, id the request's id, input the
// request as made): its status follows the kernel job's (GenerationOf).

// KindGenerate is a generation request's kind of job.
const KindGenerate = "studio.generate"

// GenerationOutput is a completed generation job's result.
type GenerationOutput struct {
	// AssetIDs are the assets generated, scene by scene, candidate by
	// candidate (scenes requests).
	AssetIDs []string `json:"asset_ids"`
	// PlanID is the plan persisted (planning requests).
	PlanID string `json:"plan_id,omitempty"`
	// Provider is the gateway provider that answered the last call.
	Provider string `json:"provider,omitempty"`
}

// GenerationFailure is what a failed generation attempt leaves on its
// job's failure (studio.generation.failed's provider).
type GenerationFailure struct {
	// Provider is the request's provider member tried last (the fallback
	// once the first failed).
	Provider string `json:"provider"`
}

// GenerationOf is a generation request as its job leaves it: queued while
// the job is queued (or failed with the policy's retry on its way),
// running while an attempt runs or is probed, completed with its assets
// or plan, failed for good with its code and the provider tried last,
// cancelled. created is the request as made.
func GenerationOf(created Generation, j jobs.Job) Generation {
	g := created
	g.Attempts, g.AssetIDs = j.Attempt, []string{}
	g.PlanID, g.ProviderUsed, g.FailureCode, g.FailureReason, g.FailedProvider, g.CompletedAt = nil, nil, nil, nil, nil, nil
	if !j.UpdatedAt.IsZero() {
		g.UpdatedAt = j.UpdatedAt
	}
	switch j.State {
	case jobs.Queued:
		g.Status = GenQueued
	case jobs.Running, jobs.Unconfirmed:
		g.Status = GenRunning
	case jobs.Succeeded:
		var out GenerationOutput
		_ = json.Unmarshal(j.Result, &out)
		g.Status, g.CompletedAt = GenCompleted, j.FinishedAt
		if out.AssetIDs != nil {
			g.AssetIDs = out.AssetIDs
		}
		if out.PlanID != "" {
			g.PlanID = &out.PlanID
		}
		if out.Provider != "" {
			g.ProviderUsed = &out.Provider
		}
	case jobs.Failed:
		if j.Failure != nil && j.Failure.RetryAt != nil {
			g.Status = GenQueued // the policy's retry is on its way
			break
		}
		g.Status, g.CompletedAt = GenFailed, j.FinishedAt
		if f := j.Failure; f != nil {
			code, reason := f.Code, f.Reason
			g.FailureCode, g.FailureReason = &code, &reason
			var d GenerationFailure
			if json.Unmarshal(f.Detail, &d) == nil && d.Provider != "" {
				g.FailedProvider = &d.Provider
			}
		}
	case jobs.Cancelled:
		g.Status, g.CompletedAt = GenCancelled, j.FinishedAt
	}
	return g
}

// FailedFinally reports a generation job that failed with no retry on its
// way (studio.generation.failed: retries exhausted, or a failure no retry
// would change, a spend cap's refusal).
func FailedFinally(j jobs.Job) bool {
	return j.State == jobs.Failed && (j.Failure == nil || j.Failure.RetryAt == nil)
}
