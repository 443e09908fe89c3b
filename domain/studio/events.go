// Package studio is the social production studio's domain (seed 002):
// projects with their structured brief, scenes, creative plan and approvals;
// composition versions and the composition snapshot a renderer draws;
// render jobs and generation requests with their state machines; assets and
// their signed previews; project templates and presets; the monthly quota
// per workspace and action. Pure Go: no I/O, no clock (time is passed in).
//
// Every event carries its aggregate's whole state after it (as publishing's
// do): write models fold to the last one, and read models, reactors and the
// notification mapping need no other source. Each aggregate names its
// workspace (an identity workspace of the organization).
package studio

import "time"

// Stream types.
const (
	StreamProject      = "studio.project"
	StreamComposition  = "studio.composition"
	StreamRenderJob    = "studio.render_job"
	StreamGeneration   = "studio.generation"
	StreamAsset        = "studio.asset"
	StreamTemplate     = "studio.template"
	StreamPreset       = "studio.preset"
	StreamQuota        = "studio.quota"
	StreamOrganization = "studio.organization"
)

// Event types: dotted, past tense, stable strings. All at schema version 1.
const (
	ProjectCreated      = "studio.project.created"
	ProjectUpdated      = "studio.project.updated"
	ProjectDeleted      = "studio.project.deleted"
	ProjectBriefUpdated = "studio.project.brief_updated"
	SceneAdded          = "studio.project.scene_added"
	SceneUpdated        = "studio.project.scene_updated"
	SceneRemoved        = "studio.project.scene_removed"
	PlanReady           = "studio.project.plan_ready"
	ApprovalRequested   = "studio.project.approval_requested"
	ApprovalApproved    = "studio.project.approval_approved"
	ApprovalRejected    = "studio.project.approval_rejected"

	CompositionCreated = "studio.composition.created"
	CompositionUpdated = "studio.composition.updated"

	RenderJobCreated   = "studio.render_job.created"
	RenderJobUpdated   = "studio.render_job.updated"
	RenderJobCancelled = "studio.render_job.cancelled"

	GenerationRequested = "studio.generation.requested"

	AssetStored  = "studio.asset.stored"
	AssetDeleted = "studio.asset.deleted"

	TemplateCreated = "studio.template.created"
	TemplateUpdated = "studio.template.updated"
	PresetCreated   = "studio.preset.created"
	PresetUpdated   = "studio.preset.updated"

	QuotaWarningClaimed = "studio.quota.warning_claimed"

	OrganizationDataErased = "studio.organization.data_erased"
)

// EventTypes are every event type of the studio context.
var EventTypes = []string{
	ProjectCreated, ProjectUpdated, ProjectDeleted, ProjectBriefUpdated, SceneAdded, SceneUpdated, SceneRemoved, PlanReady,
	ApprovalRequested, ApprovalApproved, ApprovalRejected,
	CompositionCreated, CompositionUpdated,
	RenderJobCreated, RenderJobUpdated, RenderJobCancelled,
	GenerationRequested,
	AssetStored, AssetDeleted,
	TemplateCreated, TemplateUpdated, PresetCreated, PresetUpdated,
	QuotaWarningClaimed,
	OrganizationDataErased,
}

// ProjectV1 is the payload of the project's own events (created, updated,
// deleted, brief updated): the project after the event.
type ProjectV1 struct {
	Project Project `json:"project"`
}

// SceneV1 is the payload of scene_added, scene_updated and scene_removed:
// the scene as the event leaves it (removed: as it was), and the project's
// scene count after it.
type SceneV1 struct {
	ProjectID   string    `json:"project_id"`
	WorkspaceID string    `json:"workspace_id"`
	Scene       Scene     `json:"scene"`
	SceneCount  int       `json:"scene_count"`
	At          time.Time `json:"at"`
}

// PlanV1 is a creative plan persisted with its scenes (they replace the
// project's): the plan is then ready for review (studio.plan.ready).
type PlanV1 struct {
	ProjectID   string `json:"project_id"`
	WorkspaceID string `json:"workspace_id"`
	PlanID      string `json:"plan_id"`
	// GenerationID is the planning request that produced it (null: written
	// by hand or imported).
	GenerationID *string   `json:"generation_id"`
	Scenes       []Scene   `json:"scenes"`
	At           time.Time `json:"at"`
}

// ApprovalV1 is the payload of every approval event: the approval after it.
type ApprovalV1 struct {
	ProjectID   string   `json:"project_id"`
	WorkspaceID string   `json:"workspace_id"`
	Approval    Approval `json:"approval"`
}

// CompositionV1 is the payload of both composition events.
type CompositionV1 struct {
	Composition Composition `json:"composition"`
}

// RenderJobV1 is the payload of every render job event: the job after it,
// and on creation the quota claim it counted against.
type RenderJobV1 struct {
	Job   RenderJob   `json:"job"`
	Quota *QuotaClaim `json:"quota,omitempty"`
}

// GenerationV1 is the payload of a generation request's events.
type GenerationV1 struct {
	Generation Generation  `json:"generation"`
	Quota      *QuotaClaim `json:"quota,omitempty"`
}

// AssetV1 is the payload of both asset events: the asset, and where its
// bytes are in the object store (never shown to clients).
type AssetV1 struct {
	Asset     Asset  `json:"asset"`
	ObjectKey string `json:"object_key"`
}

// TemplateV1 and PresetV1 carry the template (preset) after the event.
type TemplateV1 struct {
	Template Template `json:"template"`
}

type PresetV1 struct {
	Preset Preset `json:"preset"`
}

// QuotaWarningV1 is the monthly warning of one workspace and action,
// claimed once per period (its stream holds one per period).
type QuotaWarningV1 struct {
	WarningID   string    `json:"warning_id"`
	WorkspaceID string    `json:"workspace_id"`
	Action      string    `json:"action"`
	PeriodKey   string    `json:"period_key"`
	Used        int       `json:"used"`
	Limit       int       `json:"limit"`
	Warning     string    `json:"warning"`
	At          time.Time `json:"at"`
}

// DataErasedV1 marks an organization's studio data erased
// (organizations.data.erase): read models drop every row of the
// organization, and the write side forgets its objects.
type DataErasedV1 struct {
	OrganizationID string    `json:"organization_id"`
	Objects        int       `json:"objects"`
	AssetObjects   int       `json:"asset_objects"`
	At             time.Time `json:"at"`
}
