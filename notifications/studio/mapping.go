// Package studio maps the studio's events to seed 002's studio notification
// contracts. Keys are deterministic from the event (plan, approval, asset,
// and the workspace, action and month of a quota warning), so a redelivered
// event or a rebuild maps to the same key and the delivery log emits it once.
package studio

import (
	"fmt"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications"
)

// Mapping maps studio events to the studio contracts this service emits
// now: plan ready, approval requested, quota warning, and asset ready for a
// generated asset. generation.completed and generation.failed come with the
// generation jobs' events (the job kernel's), as does most of asset.ready.
var Mapping = notifications.Mapping{
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
