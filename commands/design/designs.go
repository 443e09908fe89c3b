package design

import (
	"context"
	"fmt"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/design/render"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/brands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// design is a command on a design's stream.
func (h *Handlers) design(id string, g *guard) object[*domain.DesignModel, domain.Design] {
	return object[*domain.DesignModel, domain.Design]{StreamType: domain.StreamDesign, ID: id, What: "design", Guard: g,
		Load: domain.LoadDesign, Answer: (*domain.DesignModel).State}
}

// CreateDesign is designs.create: a design of a project, pinned to a
// version of a kit offered for governed design (the kit's current one by
// default).
type CreateDesign struct {
	WorkspaceSlug     string        `json:"workspaceSlug"`
	ProjectID         string        `json:"projectId"`
	Name              string        `json:"name"`
	BrandKitID        string        `json:"brandKitId"`
	BrandKitVersionID *string       `json:"brandKitVersionId"`
	Width             int           `json:"width"`
	Height            int           `json:"height"`
	FPS               *int          `json:"fps"`
	Pages             []domain.Page `json:"pages"`
}

func (h *Handlers) CreateDesign(ctx context.Context, m commands.Meta, p principal.Principal, in CreateDesign) (commands.Result[domain.Design], error) {
	var none commands.Result[domain.Design]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return none, err
	}
	// The path's project before the body's kit (the transaction checks it
	// again): a project of no workspace of the caller's is 404 whatever
	// the body names.
	if err := h.registered(ctx, p.OrganizationID, ws.ID, in.ProjectID, KindProject); err != nil {
		return none, err
	}
	kit, err := h.governing(ctx, p, in.BrandKitID, in.BrandKitVersionID)
	if err != nil {
		return none, err
	}
	content := domain.Content{Width: in.Width, Height: in.Height, Pages: in.Pages}
	if in.FPS != nil {
		content.FPS = *in.FPS
	}
	id := newID()
	return h.createDesign(ctx, meta(m, p), ws.ID, in.ProjectID, domain.NewDesign{ID: id, ProjectID: in.ProjectID, WorkspaceID: ws.ID,
		Name: in.Name, CreatedBy: p.Author(), Kit: kit, Content: content})
}

// createDesign records a new design once its project and the images it
// names are checked in the registry (a new design or a copy).
func (h *Handlers) createDesign(ctx context.Context, m commands.Meta, workspaceID, projectID string, n domain.NewDesign) (commands.Result[domain.Design], error) {
	assets := n.Content.Assets()
	g := (&guard{Registry: registry, Org: m.OrganizationID, Workspace: workspaceID}).Read(projectID)
	for pointer, id := range assets {
		g.Ref(pointer, KindAsset, id)
	}
	o := h.design(n.ID, g)
	o.Writes = func(d domain.Design) []eventstore.Write {
		return []eventstore.Write{register(m.OrganizationID, workspaceID, KindDesign, d.DesignID, d.ProjectID, "", "")}
	}
	return o.Run(ctx, h.store, m, func(dm *domain.DesignModel) ([]event.Change, error) {
		if err := g.Missing(projectID, KindProject); err != nil {
			return nil, err
		}
		changes, err := dm.Create(n, h.now())
		if err != nil {
			return nil, join(err, paths(n.Content))
		}
		return changes, join(g.Refused(), paths(n.Content))
	})
}

// governing resolves the kit version a design of the caller pins: 422 at
// /brandKitId (or /brandKitVersionId) unless the kit is one the caller
// sees, published and offered for governed design.
func (h *Handlers) governing(ctx context.Context, p principal.Principal, kitID string, versionID *string) (brands.Version, error) {
	version := ""
	if versionID != nil {
		version = *versionID
	}
	v, found, err := h.kits.Governing(ctx, p, kitID, version)
	switch {
	case err != nil:
		return brands.Version{}, err
	case !found && version != "":
		if _, kitFound, err := h.kits.Governing(ctx, p, kitID, ""); err == nil && kitFound {
			return brands.Version{}, errs.InvalidField("/brandKitVersionId", "no such published version of the brand kit")
		}
		fallthrough
	case !found:
		return brands.Version{}, errs.InvalidField("/brandKitId", "no such brand kit offered for governed design")
	}
	return v, nil
}

// paths answers 422 at each path layer whose data does not parse (the
// renderer could never draw it).
func paths(c domain.Content) error {
	var fields []errs.Field
	for i, pg := range c.Pages {
		walkLayers(pg.Layers, fmt.Sprintf("/pages/%d/layers", i), func(at string, l domain.Layer) {
			if l.Type == domain.LayerPath && l.Path != "" && !render.CheckPath(l.Path) {
				fields = append(fields, errs.Field{Pointer: at + "/path", Detail: "the path data does not parse"})
			}
		})
	}
	if len(fields) > 0 {
		return errs.Invalid(fields...)
	}
	return nil
}

func walkLayers(layers []domain.Layer, at string, f func(at string, l domain.Layer)) {
	for i, l := range layers {
		p := fmt.Sprintf("%s/%d", at, i)
		f(p, l)
		walkLayers(l.Children, p+"/children", f)
	}
}

// join merges two answers: two 422s into one with every failing member.
func join(a, b error) error {
	ea, oka := errs.As(a)
	eb, okb := errs.As(b)
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case oka && okb && ea.Kind == errs.KindInvalidInput && eb.Kind == errs.KindInvalidInput:
		return errs.Invalid(append(append([]errs.Field{}, ea.Fields...), eb.Fields...)...)
	}
	return a
}

// UpdateDesign is designs.update: a new name, or new content (members not
// sent keep theirs), governed by the version the design pins.
type UpdateDesign struct {
	WorkspaceSlug string         `json:"workspaceSlug"`
	DesignID      string         `json:"designId"`
	Name          *string        `json:"name"`
	Width         *int           `json:"width"`
	Height        *int           `json:"height"`
	FPS           *int           `json:"fps"`
	Pages         *[]domain.Page `json:"pages"`
}

func (h *Handlers) UpdateDesign(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateDesign) (commands.Result[domain.Design], error) {
	var none commands.Result[domain.Design]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return none, err
	}
	current, err := h.current(ctx, p.OrganizationID, ws.ID, in.DesignID)
	if err != nil {
		return none, err
	}
	kit, found, err := h.kits.Version(ctx, current.BrandKitVersionID)
	if err != nil {
		return none, err
	}
	if !found {
		return none, errs.Unavailable("the design's brand kit version cannot be read", nil)
	}
	var content *domain.Content
	if in.Width != nil || in.Height != nil || in.FPS != nil || in.Pages != nil {
		c := current.Content
		if in.Width != nil {
			c.Width = *in.Width
		}
		if in.Height != nil {
			c.Height = *in.Height
		}
		if in.FPS != nil {
			c.FPS = *in.FPS
		}
		if in.Pages != nil {
			c.Pages = *in.Pages
		}
		content = &c
	}
	g := (&guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}).Read(in.DesignID)
	var assets map[string]string
	if content != nil {
		assets = content.Assets()
		for pointer, id := range assets {
			g.Ref(pointer, KindAsset, id)
		}
	}
	return h.design(in.DesignID, g).Run(ctx, h.store, meta(m, p), func(dm *domain.DesignModel) ([]event.Change, error) {
		if err := h.live(g, dm, ws.ID, in.DesignID); err != nil {
			return nil, err
		}
		if dm.State().BrandKitVersionID != kit.VersionID {
			return nil, errs.Conflict("design_changed", "the design was pinned to another brand kit version meanwhile: try again")
		}
		changes, err := dm.Update(in.Name, content, kit.Content, h.now())
		if content == nil {
			return changes, err
		}
		if err != nil {
			return nil, join(err, paths(*content))
		}
		return changes, join(g.Refused(), paths(*content))
	})
}

// live checks a design is live in the workspace, in the registry and in
// its stream (404 otherwise).
func (h *Handlers) live(g *guard, dm *domain.DesignModel, workspaceID, designID string) error {
	if err := g.Missing(designID, KindDesign); err != nil {
		return err
	}
	return dm.In(workspaceID)
}

// current reads a live design of the workspace from the write side.
func (h *Handlers) current(ctx context.Context, org, workspaceID, designID string) (domain.Design, error) {
	history, err := workspace.LoadOwn(ctx, h.store, org, designID, "the design service's")
	if err != nil {
		return domain.Design{}, err
	}
	dm, err := domain.LoadDesign(commands.Recorded(history))
	if err != nil {
		return domain.Design{}, err
	}
	if err := dm.In(workspaceID); err != nil {
		return domain.Design{}, err
	}
	return dm.State(), nil
}

// RebrandDesign is designs.brand_kit.update: pin the design to another
// version (the kit's current one by default) of a kit offered for
// governed design; its content must be governed by it (422 at each member
// that is not).
type RebrandDesign struct {
	WorkspaceSlug     string  `json:"workspaceSlug"`
	DesignID          string  `json:"designId"`
	BrandKitID        string  `json:"brandKitId"`
	BrandKitVersionID *string `json:"brandKitVersionId"`
}

func (h *Handlers) RebrandDesign(ctx context.Context, m commands.Meta, p principal.Principal, in RebrandDesign) (commands.Result[domain.Design], error) {
	var none commands.Result[domain.Design]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return none, err
	}
	if err := h.registered(ctx, p.OrganizationID, ws.ID, in.DesignID, KindDesign); err != nil {
		return none, err // the path's design before the body's kit
	}
	kit, err := h.governing(ctx, p, in.BrandKitID, in.BrandKitVersionID)
	if err != nil {
		return none, err
	}
	g := (&guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}).Read(in.DesignID)
	return h.design(in.DesignID, g).Run(ctx, h.store, meta(m, p), func(dm *domain.DesignModel) ([]event.Change, error) {
		if err := h.live(g, dm, ws.ID, in.DesignID); err != nil {
			return nil, err
		}
		return dm.Rebrand(kit, h.now())
	})
}

// DesignRef names a design of a workspace.
type DesignRef struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	DesignID      string `json:"designId"`
}

// DeleteDesign is designs.delete.
func (h *Handlers) DeleteDesign(ctx context.Context, m commands.Meta, p principal.Principal, in DesignRef) (commands.Result[domain.Design], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return commands.Result[domain.Design]{}, err
	}
	g := (&guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}).Read(in.DesignID)
	o := h.design(in.DesignID, g)
	o.Writes = func(d domain.Design) []eventstore.Write { return []eventstore.Write{registry.Retire(d.DesignID)} }
	return o.Run(ctx, h.store, meta(m, p), func(dm *domain.DesignModel) ([]event.Change, error) {
		if err := h.live(g, dm, ws.ID, in.DesignID); err != nil {
			return nil, err
		}
		return dm.Delete(h.now())
	})
}

// DuplicateDesign is designs.duplicate: a copy in the same project, pinned
// to the same version ("Copy of <name>" unless named).
type DuplicateDesign struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	DesignID      string  `json:"designId"`
	Name          *string `json:"name"`
}

func (h *Handlers) DuplicateDesign(ctx context.Context, m commands.Meta, p principal.Principal, in DuplicateDesign) (commands.Result[domain.Design], error) {
	var none commands.Result[domain.Design]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return none, err
	}
	src, err := h.current(ctx, p.OrganizationID, ws.ID, in.DesignID)
	if err != nil {
		return none, err
	}
	kit, found, err := h.kits.Version(ctx, src.BrandKitVersionID)
	if err != nil {
		return none, err
	}
	if !found {
		return none, errs.Unavailable("the design's brand kit version cannot be read", nil)
	}
	name := "Copy of " + src.Name
	if in.Name != nil {
		name = *in.Name
	}
	if r := []rune(name); len(r) > domain.MaxName {
		name = string(r[:domain.MaxName])
	}
	return h.createDesign(ctx, meta(m, p), ws.ID, src.ProjectID, domain.NewDesign{ID: newID(), ProjectID: src.ProjectID,
		WorkspaceID: ws.ID, Name: name, CreatedBy: p.Author(), Kit: kit, Content: src.Content})
}
