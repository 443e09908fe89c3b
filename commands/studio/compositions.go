package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// CreateComposition is projects.compositions.create.
type CreateComposition struct {
	WorkspaceSlug    string          `json:"workspaceSlug"`
	ProjectID        string          `json:"projectId"`
	Title            string          `json:"title"`
	AspectRatio      string          `json:"aspectRatio"`
	Snapshot         domain.Snapshot `json:"snapshot"`
	Notes            []string        `json:"notes"`
	SourceKind       string          `json:"sourceKind"`
	GenerationStatus string          `json:"generationStatus"`
}

// composition is a command on a composition version's stream.
func (h *Handlers) composition(id string, g *guard) object[*domain.CompositionModel, domain.Composition] {
	return object[*domain.CompositionModel, domain.Composition]{StreamType: domain.StreamComposition, ID: id, What: "composition version",
		Guard: g, Load: domain.LoadComposition, Answer: (*domain.CompositionModel).State}
}

// nameAssets adds a snapshot's asset references to the guard's checks.
func nameAssets(g *guard, s domain.Snapshot) {
	for pointer, id := range s.Assets() {
		g.Ref("/snapshot"+pointer, KindAsset, id)
	}
}

// CreateComposition records a new version of a project's composition; the
// snapshot's assets must be the workspace's.
func (h *Handlers) CreateComposition(ctx context.Context, m commands.Meta, p principal.Principal, in CreateComposition) (commands.Result[domain.Composition], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermAssetsWrite)
	if err != nil {
		return commands.Result[domain.Composition]{}, err
	}
	id := newID()
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Project: in.ProjectID}
	nameAssets(g, in.Snapshot)
	return h.composition(id, g).WithWrites(func(c domain.Composition) []eventstore.Write {
		return []eventstore.Write{registry.Register(p.OrganizationID, ws.ID, KindComposition, c.CompositionVersionID, c.ProjectID, "")}
	}).Run(ctx, h.store, meta(m, p), func(cm *domain.CompositionModel) ([]event.Change, error) {
		return cm.Create(domain.NewComposition{ID: id, ProjectID: in.ProjectID, WorkspaceID: ws.ID, CreatedBy: p.Author(), Title: in.Title,
			AspectRatio: in.AspectRatio, Snapshot: in.Snapshot, Notes: in.Notes, SourceKind: in.SourceKind,
			GenerationStatus: in.GenerationStatus}, h.now())
	})
}

// UpdateComposition is projects.compositions.update (nil keeps).
type UpdateComposition struct {
	WorkspaceSlug        string           `json:"workspaceSlug"`
	ProjectID            string           `json:"projectId"`
	CompositionVersionID string           `json:"compositionVersionId"`
	Title                *string          `json:"title"`
	AspectRatio          *string          `json:"aspectRatio"`
	Snapshot             *domain.Snapshot `json:"snapshot"`
	Notes                *[]string        `json:"notes"`
	GenerationStatus     *string          `json:"generationStatus"`
}

func (h *Handlers) UpdateComposition(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateComposition) (commands.Result[domain.Composition], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermAssetsWrite)
	if err != nil {
		return commands.Result[domain.Composition]{}, err
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Project: in.ProjectID, Object: in.CompositionVersionID}
	if in.Snapshot != nil {
		nameAssets(g, *in.Snapshot)
	}
	return h.composition(in.CompositionVersionID, g).Run(ctx, h.store, meta(m, p), func(cm *domain.CompositionModel) ([]event.Change, error) {
		if err := cm.In(ws.ID, in.ProjectID); err != nil {
			return nil, err
		}
		return cm.Update(domain.CompositionChange{Title: in.Title, AspectRatio: in.AspectRatio, Snapshot: in.Snapshot, Notes: in.Notes,
			GenerationStatus: in.GenerationStatus}, h.now())
	})
}
