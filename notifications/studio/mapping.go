// Package studio maps the studio's events to seed 002's studio notification
// contracts. Keys are deterministic from the event (plan, approval, asset,
// and the workspace, action and month of a quota warning), so a redelivered
// event or a rebuild maps to the same key and the delivery log emits it once.
package studio

import (
	"encoding/json"
	"fmt"

	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications"
)

// jobTypes are the studio's kernel job events.
var jobTypes = domjobs.TypesOf("studio")

// Mapping maps studio events to the six studio contracts: plan ready,
// approval requested, quota warning, asset ready for a generated asset,
// and a scenes generation job's completion and final failure (its kernel
// job's succeeded and failed events).
var Mapping = notifications.Mapping{
	jobTypes.Succeeded: notifications.MapAs(func(e eventstore.Event, p domjobs.Event) ([]notifications.Notification, error) {
		g, ok, err := sceneGeneration(p.Job)
		if !ok || err != nil {
			return nil, err
		}
		var out domain.GenerationOutput
		if err := json.Unmarshal(p.Job.Result, &out); err != nil {
			return nil, err
		}
		return notifications.One("studio.generation.completed", "studio:generation:"+g.GenerationID+":completed", map[string]any{
			"title": "Generation completed", "body": fmt.Sprintf("%d generated %s candidate(s) are ready.", len(out.AssetIDs), g.OutputKind),
			"object_id": g.GenerationID, "occurred_at": notifications.Timestamp(p.At), "category": "studio", "severity": "success",
			"object_type": "studio_generation",
			"payload": map[string]any{"job_id": g.GenerationID, "project_id": g.ProjectID, "scene_id": sceneOf(g),
				"asset_count": len(out.AssetIDs), "asset_ids": out.AssetIDs, "workspace_id": g.WorkspaceID},
		}), nil
	}),
	// Only a final failure: retries exhausted, or one no retry would
	// change (a spend cap's refusal); a failure the policy retries is not one.
	jobTypes.Failed: notifications.MapAs(func(e eventstore.Event, p domjobs.Event) ([]notifications.Notification, error) {
		g, ok, err := sceneGeneration(p.Job)
		if !ok || err != nil || !domain.FailedFinally(p.Job) {
			return nil, err
		}
		failed := domain.GenerationOf(g, p.Job)
		provider, code := g.Provider, "generation_failed"
		if failed.FailedProvider != nil {
			provider = *failed.FailedProvider
		}
		if failed.FailureCode != nil {
			code = *failed.FailureCode
		}
		return notifications.One("studio.generation.failed", "studio:generation:"+g.GenerationID+":failed", map[string]any{
			"title": "Generation failed", "body": "The generation could not be completed (" + code + ").",
			"object_id": g.GenerationID, "occurred_at": notifications.Timestamp(p.At), "category": "studio", "severity": "critical",
			"object_type": "studio_generation",
			"payload": map[string]any{"job_id": g.GenerationID, "project_id": g.ProjectID, "scene_id": sceneOf(g), "provider": provider,
				"error_code": code, "workspace_id": g.WorkspaceID, "attempts": p.Job.Attempt},
		}), nil
	}),
	jobTypes.Requested:   notifications.Silent,
	jobTypes.Claimed:     notifications.Silent,
	jobTypes.Progressed:  notifications.Silent,
	jobTypes.Unconfirmed: notifications.Silent,
	jobTypes.Requeued:    notifications.Silent,
	jobTypes.Cancelled:   notifications.Silent, // a person's decision: no contract
	domain.PlanReady: notifications.MapAs(func(e eventstore.Event, p domain.PlanV1) ([]notifications.Notification, error) {
		return notifications.One("studio.plan.ready", fmt.Sprintf("studio:plan:%s:ready:%s", p.ProjectID, p.PlanID), map[string]any{
			"title": "Creative plan ready for review", "body": fmt.Sprintf("A plan of %d scenes is ready for review.", len(p.Scenes)),
			"object_id": p.PlanID, "occurred_at": notifications.Timestamp(p.At), "category": "studio", "severity": "info",
			"object_type": "studio_plan",
			"payload": map[string]any{"project_id": p.ProjectID, "plan_id": p.PlanID, "scene_count": len(p.Scenes),
				"workspace_id": p.WorkspaceID},
		}), nil
	}),
	domain.ApprovalRequested: notifications.MapAs(func(e eventstore.Event, p domain.ApprovalV1) ([]notifications.Notification, error) {
		a := p.Approval
		body := "A project is waiting for your review."
		if a.Note != nil {
			body = *a.Note
		}
		return notifications.One("studio.approval.requested", "studio:approval:"+a.ApprovalRequestID+":requested", map[string]any{
			"title": "Approval requested", "body": body, "object_id": a.ApprovalRequestID, "occurred_at": notifications.Timestamp(a.RequestedAt),
			"category": "studio", "severity": "info", "object_type": "studio_approval_request", "surface": "action",
			"payload": map[string]any{"approval_request_id": a.ApprovalRequestID, "project_id": a.ProjectID,
				"requested_by_user_id": a.RequestedByUserID, "note": a.Note, "reviewer_user_id": a.ReviewerUserID, "workspace_id": p.WorkspaceID},
		}), nil
	}),
	domain.QuotaWarningClaimed: notifications.MapAs(func(e eventstore.Event, p domain.QuotaWarningV1) ([]notifications.Notification, error) {
		return notifications.One("studio.quota.warning", fmt.Sprintf("studio:quota-warning:%s:%s:%s", p.WorkspaceID, p.Action, p.PeriodKey),
			map[string]any{
				"title": "Monthly quota almost used", "body": p.Warning, "object_id": p.WarningID, "occurred_at": notifications.Timestamp(p.At),
				"category": "studio", "severity": "warning", "object_type": "studio_quota_warning",
				"payload": map[string]any{"warning_id": p.WarningID, "action": p.Action, "warning": p.Warning, "period_key": p.PeriodKey,
					"workspace_id": p.WorkspaceID, "used": p.Used, "limit": p.Limit},
			}), nil
	}),
	// A generated asset is ready (seed 002: "generated asset persisted");
	// uploads, copies and render outputs are not generated.
	domain.AssetStored: notifications.MapAs(func(e eventstore.Event, p domain.AssetV1) ([]notifications.Notification, error) {
		a := p.Asset
		if a.Source != domain.SourceGeneration || a.JobID == nil || a.SceneID == nil || a.ProjectID == nil {
			return nil, nil
		}
		return notifications.One("studio.asset.ready", "studio:asset:"+a.AssetID+":ready", map[string]any{
			"title": "Generated asset ready", "body": "A generated " + a.Kind + " is ready.", "object_id": a.AssetID,
			"occurred_at": notifications.Timestamp(a.CreatedAt), "category": "studio", "severity": "success", "object_type": "studio_asset",
			"payload": map[string]any{"asset_id": a.AssetID, "job_id": *a.JobID, "project_id": *a.ProjectID, "scene_id": *a.SceneID,
				"kind": a.Kind, "workspace_id": a.WorkspaceID},
		}), nil
	}),
	domain.ProjectCreated:         notifications.Silent,
	domain.ProjectUpdated:         notifications.Silent,
	domain.ProjectDeleted:         notifications.Silent,
	domain.ProjectBriefUpdated:    notifications.Silent,
	domain.SceneAdded:             notifications.Silent,
	domain.SceneUpdated:           notifications.Silent,
	domain.SceneRemoved:           notifications.Silent,
	domain.ApprovalApproved:       notifications.Silent, // the seed has no contract for a decision
	domain.ApprovalRejected:       notifications.Silent,
	domain.CompositionCreated:     notifications.Silent,
	domain.CompositionUpdated:     notifications.Silent,
	domain.RenderJobCreated:       notifications.Silent,
	domain.RenderJobUpdated:       notifications.Silent,
	domain.RenderJobCancelled:     notifications.Silent,
	domain.GenerationRequested:    notifications.Silent, // completed and failed are the contracts
	domain.AssetDeleted:           notifications.Silent,
	domain.TemplateCreated:        notifications.Silent,
	domain.TemplateUpdated:        notifications.Silent,
	domain.PresetCreated:          notifications.Silent,
	domain.PresetUpdated:          notifications.Silent,
	domain.OrganizationDataErased: notifications.Silent,
}

// sceneGeneration is the generation request of a scenes generation job
// (ok false for renders and planning jobs: a plan's outcome is
// studio.plan.ready, and the generation contracts require a scene).
func sceneGeneration(j domjobs.Job) (domain.Generation, bool, error) {
	if j.Kind != domain.KindGenerate {
		return domain.Generation{}, false, nil
	}
	var g domain.Generation
	if err := json.Unmarshal(j.Input, &g); err != nil {
		return g, false, err
	}
	return g, g.Kind == domain.GenerationScenes, nil
}

// sceneOf is the scene a scenes request names: the path's, else its first.
func sceneOf(g domain.Generation) string {
	if g.SceneID != nil {
		return *g.SceneID
	}
	if len(g.SceneIDs) > 0 {
		return g.SceneIDs[0]
	}
	return ""
}
