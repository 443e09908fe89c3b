package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
)

// SceneList is a project's scenes in order.
type SceneList struct {
	ProjectID string         `json:"projectId"`
	Scenes    []domain.Scene `json:"scenes"`
}

func sceneList(pm *domain.ProjectModel) SceneList {
	s := pm.Scenes()
	if s == nil {
		s = []domain.Scene{}
	}
	return SceneList{ProjectID: pm.State().ProjectID, Scenes: s}
}

// sceneCommand runs a decision on a project's scenes and answers with them.
func (h *Handlers) sceneCommand(ctx context.Context, m commands.Meta, p principal.Principal, slug, projectID string,
	act func(*domain.ProjectModel) ([]event.Change, error)) (commands.Result[SceneList], error) {
	ws, err := h.Enter(ctx, p, slug, PermBriefsWrite)
	if err != nil {
		return commands.Result[SceneList]{}, err
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Object: projectID}
	o := object[*domain.ProjectModel, SceneList]{StreamType: domain.StreamProject, ID: projectID, What: "project", Guard: g,
		Load: domain.LoadProject, Answer: sceneList}
	return o.Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		return act(pm)
	})
}

// AddScene is projects.scenes.create.
type AddScene struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	ProjectID     string  `json:"projectId"`
	Title         string  `json:"title"`
	Description   *string `json:"description"`
	Prompt        *string `json:"prompt"`
	DurationMs    *int    `json:"durationMs"`
	Position      *int    `json:"position"`
}

func (h *Handlers) AddScene(ctx context.Context, m commands.Meta, p principal.Principal, in AddScene) (commands.Result[SceneList], error) {
	id := newID()
	return h.sceneCommand(ctx, m, p, in.WorkspaceSlug, in.ProjectID, func(pm *domain.ProjectModel) ([]event.Change, error) {
		return pm.AddScene(id, domain.SceneInput{Title: &in.Title, Description: in.Description, Prompt: in.Prompt,
			DurationMs: in.DurationMs, Position: in.Position}, h.now())
	})
}

// UpdateScene is projects.scenes.update (nil keeps; "" clears description
// and prompt; position moves the scene).
type UpdateScene struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	ProjectID     string  `json:"projectId"`
	SceneID       string  `json:"sceneId"`
	Title         *string `json:"title"`
	Description   *string `json:"description"`
	Prompt        *string `json:"prompt"`
	DurationMs    *int    `json:"durationMs"`
	Position      *int    `json:"position"`
}

func (h *Handlers) UpdateScene(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateScene) (commands.Result[SceneList], error) {
	return h.sceneCommand(ctx, m, p, in.WorkspaceSlug, in.ProjectID, func(pm *domain.ProjectModel) ([]event.Change, error) {
		return pm.UpdateScene(in.SceneID, domain.SceneInput{Title: in.Title, Description: in.Description, Prompt: in.Prompt,
			DurationMs: in.DurationMs, Position: in.Position}, h.now())
	})
}

// SceneRef names a scene of a project.
type SceneRef struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
	SceneID       string `json:"sceneId"`
}

// RemoveScene is projects.scenes.delete.
func (h *Handlers) RemoveScene(ctx context.Context, m commands.Meta, p principal.Principal, in SceneRef) (commands.Result[SceneList], error) {
	return h.sceneCommand(ctx, m, p, in.WorkspaceSlug, in.ProjectID, func(pm *domain.ProjectModel) ([]event.Change, error) {
		return pm.RemoveScene(in.SceneID, h.now())
	})
}

// PlannedScene is one scene of a persisted plan.
type PlannedScene struct {
	Title       string  `json:"title"`
	Description *string `json:"description"`
	Prompt      *string `json:"prompt"`
	DurationMs  *int    `json:"durationMs"`
}

// PersistPlan records a creative plan with its scenes on a project: the
// seam a planning job calls when its generation is persisted (and what
// imports a plan written elsewhere). The plan is then ready for review
// (studio.plan.ready, once per plan id). m carries the organization; the
// job names the project's workspace.
func (h *Handlers) PersistPlan(ctx context.Context, m commands.Meta, workspaceID, projectID, planID string, generationID *string,
	scenes []PlannedScene) (commands.Result[SceneList], error) {
	g := &guard{Registry: registry, Org: m.OrganizationID, Workspace: workspaceID, Object: projectID}
	ins := make([]domain.SceneInput, len(scenes))
	ids := make([]string, len(scenes))
	for i, s := range scenes {
		ins[i] = domain.SceneInput{Title: &s.Title, Description: s.Description, Prompt: s.Prompt, DurationMs: s.DurationMs}
		ids[i] = newID()
	}
	o := object[*domain.ProjectModel, SceneList]{StreamType: domain.StreamProject, ID: projectID, What: "project", Guard: g,
		Load: domain.LoadProject, Answer: sceneList}
	return o.Run(ctx, h.store, m, func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := pm.In(workspaceID); err != nil {
			return nil, err
		}
		return pm.PersistPlan(planID, generationID, ins, ids, h.now())
	})
}
