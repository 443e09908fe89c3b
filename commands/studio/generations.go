package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// GenerationMembers are seed 002's generation request members.
type GenerationMembers struct {
	SceneIDs                []string `json:"sceneIds"`
	Provider                *string  `json:"provider"`
	FallbackProvider        *string  `json:"fallbackProvider"`
	CandidateCount          *int     `json:"candidateCount"`
	SourceAssetID           *string  `json:"sourceAssetId"`
	OutputKind              *string  `json:"outputKind"`
	VideoDurationSeconds    *int     `json:"videoDurationSeconds"`
	GatewayProviderOverride *string  `json:"gatewayProviderOverride"`
	GatewayModelOverride    *string  `json:"gatewayModelOverride"`
	AssetID                 *string  `json:"assetId"`
}

func (g GenerationMembers) input() domain.GenerationInput {
	return domain.GenerationInput{SceneIDs: g.SceneIDs, Provider: g.Provider, FallbackProvider: g.FallbackProvider,
		CandidateCount: g.CandidateCount, SourceAssetID: g.SourceAssetID, OutputKind: g.OutputKind,
		VideoDurationSeconds: g.VideoDurationSeconds, GatewayProviderOverride: g.GatewayProviderOverride,
		GatewayModelOverride: g.GatewayModelOverride, AssetID: g.AssetID}
}

// RegenerateScene is projects.scenes.regenerate.
type RegenerateScene struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
	SceneID       string `json:"sceneId"`
	GenerationMembers
}

// GeneratePlan is projects.planning.generate: a creative plan from the
// project's brief, sceneCount scenes (5 by default).
type GeneratePlan struct {
	WorkspaceSlug           string  `json:"workspaceSlug"`
	ProjectID               string  `json:"projectId"`
	SceneCount              *int    `json:"sceneCount"`
	Provider                *string `json:"provider"`
	FallbackProvider        *string `json:"fallbackProvider"`
	GatewayProviderOverride *string `json:"gatewayProviderOverride"`
	GatewayModelOverride    *string `json:"gatewayModelOverride"`
}

// RegenerateScene queues new candidates for scenes of a project (the path's
// scene by default). Runtime authorization: overriding the gateway's
// provider or model is a workspace admin's choice (it changes what the
// workspace spends).
func (h *Handlers) RegenerateScene(ctx context.Context, m commands.Meta, p principal.Principal, in RegenerateScene) (commands.Result[domain.Generation], error) {
	var none commands.Result[domain.Generation]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermGenerationWrite)
	if err != nil {
		return none, err
	}
	scenes, err := h.projectScenes(ctx, p.OrganizationID, ws.ID, in.ProjectID)
	if err != nil {
		return none, err
	}
	known := false
	for _, s := range scenes {
		known = known || s == in.SceneID
	}
	if !known {
		return none, errs.NotFound("scene")
	}
	sceneID := in.SceneID
	return h.requestGeneration(ctx, m, p, ws, in.ProjectID, domain.GenerationScenes, &sceneID, in.input(), scenes)
}

// GeneratePlan queues a planning request; the job kernel runs it and
// persists the plan (PersistPlan), which makes it ready for review.
func (h *Handlers) GeneratePlan(ctx context.Context, m commands.Meta, p principal.Principal, in GeneratePlan) (commands.Result[domain.Generation], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermGenerationWrite)
	if err != nil {
		return commands.Result[domain.Generation]{}, err
	}
	return h.requestGeneration(ctx, m, p, ws, in.ProjectID, domain.GenerationPlanning, nil, domain.GenerationInput{
		SceneCount: in.SceneCount, Provider: in.Provider, FallbackProvider: in.FallbackProvider,
		GatewayProviderOverride: in.GatewayProviderOverride, GatewayModelOverride: in.GatewayModelOverride}, nil)
}

// requestGeneration records a generation request counted against the
// workspace's monthly generation quota, then requests its job (the kernel
// runs it: generateDo; the job_requests reactor requests it should this
// process stop first).
func (h *Handlers) requestGeneration(ctx context.Context, m commands.Meta, p principal.Principal, ws Workspace, projectID, kind string,
	sceneID *string, in domain.GenerationInput, known []string) (commands.Result[domain.Generation], error) {
	if (in.GatewayProviderOverride != nil || in.GatewayModelOverride != nil) && !WorkspaceAdmin(p, ws.ID) {
		return commands.Result[domain.Generation]{}, errs.PermissionDenied("overriding the gateway's provider or model needs an admin of the workspace")
	}
	id := newID()
	q := h.quota(p.OrganizationID, ws.ID, domain.QuotaGenerations)
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Project: projectID}
	g.Also = append(g.Also, q.prepare)
	if in.SourceAssetID != nil {
		g.Ref("/sourceAssetId", KindAsset, *in.SourceAssetID)
	}
	if in.AssetID != nil {
		g.Ref("/assetId", KindAsset, *in.AssetID)
	}
	var claim *domain.QuotaClaim
	o := object[*domain.GenerationModel, domain.Generation]{StreamType: domain.StreamGeneration, ID: id, What: "generation request",
		Guard: g, Load: domain.LoadGeneration, Answer: (*domain.GenerationModel).State,
		Writes: func(gen domain.Generation) []eventstore.Write {
			return []eventstore.Write{registry.Register(p.OrganizationID, ws.ID, KindGeneration, gen.GenerationID, gen.ProjectID, ""), q.count()}
		}}
	res, err := o.Run(ctx, h.store, meta(m, p), func(gm *domain.GenerationModel) ([]event.Change, error) {
		var err error
		if claim, err = q.claim(); err != nil {
			return nil, err
		}
		return gm.Request(domain.NewGeneration{ID: id, ProjectID: projectID, WorkspaceID: ws.ID, RequestedBy: p.Author(), ChargedTo: chargedTo(p), Kind: kind,
			SceneID: sceneID, Input: in, KnownScenes: known, Quota: claim}, h.now())
	})
	if err == nil && !res.Replayed {
		h.warnLogged(ctx, meta(m, p), ws.ID, claim)
	}
	if err == nil {
		h.requestGenerationJob(ctx, jobMeta(meta(m, p)), res.Value)
	}
	return res, err
}

// chargedTo is whose gateway spend a generation counts against: the user
// behind the credential (a key's: the user it acts as), else the
// credential itself.
func chargedTo(p principal.Principal) string {
	if u := p.ActingUser(); u != "" {
		return u
	}
	return p.Author()
}

// projectScenes are the scene ids of a live project of the workspace, from
// the write side (404 for another workspace's or organization's project).
func (h *Handlers) projectScenes(ctx context.Context, org, workspaceID, projectID string) ([]string, error) {
	history, err := workspace.LoadOwn(ctx, h.store, org, projectID, "the studio's")
	if err != nil {
		return nil, err
	}
	pm, err := domain.LoadProject(commands.Recorded(history))
	if err != nil {
		return nil, err
	}
	if err := pm.In(workspaceID); err != nil {
		return nil, err
	}
	ids := []string{}
	for _, s := range pm.Scenes() {
		ids = append(ids, s.SceneID)
	}
	return ids, nil
}
