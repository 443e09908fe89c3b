package studio

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// DuplicateProject is projects.duplicate.
type DuplicateProject struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	ProjectID     string  `json:"projectId"`
	Title         *string `json:"title"`
	IncludeAssets bool    `json:"includeAssets"`
}

var copySpace = uuid.MustParse("a4b0f3c2-5d0e-4c55-9b9f-2f6f0c3d8e71")

// copyID is a copied object's id: a function of the copy and the original,
// so a retried duplicate (same Idempotency-Key: the same new project) makes
// no second copy of anything.
func copyID(project, original string) string {
	return uuid.NewSHA1(copySpace, []byte(project+"\x00"+original)).String()
}

// DuplicateProject copies a project of the workspace: its members, brief
// and scenes, its composition versions, and with includeAssets its assets
// (bytes copied; the copied versions' snapshots then name the copies).
// Without includeAssets the copied versions keep naming the original
// assets, which stay in the workspace. The answer is the new project.
func (h *Handlers) DuplicateProject(ctx context.Context, m commands.Meta, p principal.Principal, in DuplicateProject) (commands.Result[domain.Project], error) {
	var none commands.Result[domain.Project]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermBriefsWrite)
	if err != nil {
		return none, err
	}
	history, err := workspace.LoadOwn(ctx, h.store, p.OrganizationID, in.ProjectID, "the studio's")
	if err != nil {
		return none, err
	}
	source, err := domain.LoadProject(commands.Recorded(history))
	if err != nil {
		return none, err
	}
	if err := source.In(ws.ID); err != nil {
		return none, err
	}
	src := source.State()
	title := src.Title
	if in.Title != nil {
		title = *in.Title
	} else if len([]rune("Copy of "+title)) <= domain.MaxTitle {
		title = "Copy of " + title
	}
	id := newID()
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Project: src.ProjectID}
	m = meta(m, p)
	res, err := h.project(id, g).WithWrites(func(pr domain.Project) []eventstore.Write {
		return []eventstore.Write{registry.Register(p.OrganizationID, ws.ID, KindProject, pr.ProjectID, "", "")}
	}).Run(ctx, h.store, m, func(pm *domain.ProjectModel) ([]event.Change, error) {
		scenes := source.Scenes()
		for i := range scenes {
			scenes[i].SceneID = copyID(id, scenes[i].SceneID)
		}
		return pm.Create(domain.NewProject{ID: id, WorkspaceID: ws.ID, CreatedBy: p.Author(), Title: title, Objective: src.Objective,
			TemplateID: src.TemplateID, BrandKitID: src.BrandKitID, Brief: src.Brief, Scenes: scenes, DuplicatedFrom: &src.ProjectID}, h.now())
	})
	if err != nil {
		return res, err
	}
	// The copy's children: the new project id is the first request's on a
	// replay, so the ids below are too.
	copyOf := res.Value.ProjectID
	child := m
	child.IdempotencyKey, child.RequestHash = "", ""
	assets := map[string]string{}
	if in.IncludeAssets {
		if assets, err = h.copyAssets(ctx, child, ws.ID, src.ProjectID, copyOf); err != nil {
			return res, err
		}
	}
	if err := h.copyCompositions(ctx, child, p, ws.ID, src.ProjectID, copyOf, assets); err != nil {
		return res, err
	}
	return res, nil
}

// children are the live objects of a kind of a project, oldest first.
func (h *Handlers) children(ctx context.Context, org, project, kind string) ([][2]string, error) {
	rows, err := h.pool.Query(ctx, `SELECT object_id, coalesce(object_key, '') FROM studio_objects WHERE organization_id = $1
		AND project_id = $2 AND kind = $3 AND live ORDER BY created_at, object_id`, org, project, kind)
	if err != nil {
		return nil, errs.Unavailable("the studio's store is unavailable", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var c [2]string
		return c, r.Scan(&c[0], &c[1])
	})
	if err != nil {
		return nil, errs.Unavailable("the studio's store is unavailable", err)
	}
	return out, nil
}

// copyAssets copies the source project's assets (bytes and records) into
// the copy: original id -> copy's id.
func (h *Handlers) copyAssets(ctx context.Context, m commands.Meta, workspaceID, source, copyOf string) (map[string]string, error) {
	list, err := h.children(ctx, m.OrganizationID, source, KindAsset)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, c := range list {
		original, key := c[0], c[1]
		id := copyID(copyOf, original)
		out[original] = id
		history, err := workspace.LoadOwn(ctx, h.store, m.OrganizationID, id, "the studio's")
		if err != nil {
			return nil, err
		}
		if len(history) > 0 {
			continue // copied by a first attempt
		}
		orig, err := workspace.LoadOwn(ctx, h.store, m.OrganizationID, original, "the studio's")
		if err != nil {
			return nil, err
		}
		am, err := domain.LoadAsset(commands.Recorded(orig))
		if err != nil {
			return nil, err
		}
		obj, err := h.objects.Get(ctx, key)
		if err != nil {
			return nil, objectError(err, 0)
		}
		a := am.State()
		_, err = h.storeAsset(ctx, m, workspaceID, domain.Asset{AssetID: id, ProjectID: &copyOf, ContentType: a.ContentType, Filename: a.Filename,
			Source: domain.SourceDuplicate, CreatedBy: a.CreatedBy}, obj.Body)
		obj.Body.Close()
		if err != nil && errs.CodeOf(err) != "asset_exists" {
			return nil, err
		}
	}
	return out, nil
}

// copyCompositions copies the source project's composition versions, their
// snapshots naming the copied assets where there are copies.
func (h *Handlers) copyCompositions(ctx context.Context, m commands.Meta, p principal.Principal, workspaceID, source, copyOf string, assets map[string]string) error {
	list, err := h.children(ctx, m.OrganizationID, source, KindComposition)
	if err != nil {
		return err
	}
	for _, c := range list {
		history, err := workspace.LoadOwn(ctx, h.store, m.OrganizationID, c[0], "the studio's")
		if err != nil {
			return err
		}
		cm, err := domain.LoadComposition(commands.Recorded(history))
		if err != nil {
			return err
		}
		orig := cm.State()
		snap := remapAssets(orig.Snapshot, assets)
		id := copyID(copyOf, orig.CompositionVersionID)
		g := &guard{Registry: registry, Org: m.OrganizationID, Workspace: workspaceID, Project: copyOf}
		nameAssets(g, snap)
		_, err = h.composition(id, g).WithWrites(func(cv domain.Composition) []eventstore.Write {
			return []eventstore.Write{registry.Register(m.OrganizationID, workspaceID, KindComposition, cv.CompositionVersionID, copyOf, "")}
		}).Run(ctx, h.store, m, func(model *domain.CompositionModel) ([]event.Change, error) {
			return model.Create(domain.NewComposition{ID: id, ProjectID: copyOf, WorkspaceID: workspaceID, CreatedBy: p.Author(), Title: orig.Title,
				AspectRatio: orig.AspectRatio, Snapshot: snap, Notes: orig.Notes, SourceKind: orig.SourceKind,
				GenerationStatus: orig.GenerationStatus}, h.now())
		})
		if err != nil && errs.CodeOf(err) != "composition_exists" {
			return err
		}
	}
	return nil
}

// remapAssets returns the snapshot with asset ids replaced by their copies.
func remapAssets(s domain.Snapshot, copies map[string]string) domain.Snapshot {
	to := func(id string) string {
		if c, ok := copies[id]; ok {
			return c
		}
		return id
	}
	out := s
	out.Fonts = append([]domain.Font(nil), s.Fonts...)
	for i, f := range out.Fonts {
		if f.AssetID != nil {
			id := to(*f.AssetID)
			out.Fonts[i].AssetID = &id
		}
	}
	out.Scenes = append([]domain.SnapshotScene(nil), s.Scenes...)
	for i, sc := range out.Scenes {
		if sc.Background.AssetID != "" {
			out.Scenes[i].Background.AssetID = to(sc.Background.AssetID)
		}
		out.Scenes[i].Layers = append([]domain.Layer(nil), sc.Layers...)
		for j, l := range out.Scenes[i].Layers {
			if l.AssetID != "" {
				out.Scenes[i].Layers[j].AssetID = to(l.AssetID)
			}
		}
	}
	return out
}
