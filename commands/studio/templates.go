package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// TemplateMembers are a project template's members (seed 002).
type TemplateMembers struct {
	Name           *string        `json:"name"`
	Description    *string        `json:"description"`
	PromptDefaults *domain.Values `json:"promptDefaults"`
	Platforms      *[]string      `json:"platforms"`
}

func (t TemplateMembers) input() domain.TemplateInput {
	return domain.TemplateInput{Name: t.Name, Description: t.Description, PromptDefaults: t.PromptDefaults, Platforms: t.Platforms}
}

// CreateTemplate is project_templates.create.
type CreateTemplate struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	TemplateMembers
}

// UpdateTemplate is project_templates.update.
type UpdateTemplate struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	TemplateID    string `json:"templateId"`
	TemplateMembers
}

func (h *Handlers) template(id string, g *guard) object[*domain.TemplateModel, domain.Template] {
	return object[*domain.TemplateModel, domain.Template]{StreamType: domain.StreamTemplate, ID: id, What: "project template", Guard: g,
		Load: domain.LoadTemplate, Answer: (*domain.TemplateModel).State}
}

// CreateTemplate adds a template to a workspace; its creator owns it.
func (h *Handlers) CreateTemplate(ctx context.Context, m commands.Meta, p principal.Principal, in CreateTemplate) (commands.Result[domain.Template], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermSettingsWrite)
	if err != nil {
		return commands.Result[domain.Template]{}, err
	}
	id := newID()
	return h.template(id, &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}).WithWrites(func(t domain.Template) []eventstore.Write {
		return []eventstore.Write{registry.Register(p.OrganizationID, ws.ID, KindTemplate, t.TemplateID, "", "")}
	}).Run(ctx, h.store, meta(m, p), func(tm *domain.TemplateModel) ([]event.Change, error) {
		return tm.Create(id, ws.ID, p.Author(), in.input(), h.now())
	})
}

// errNotOwner is the runtime refusal of templates and presets.
var errNotOwner = errs.PermissionDenied("only its owner or an admin of the workspace changes it")

// UpdateTemplate changes a template: its owner or a workspace admin
// (runtime authorization).
func (h *Handlers) UpdateTemplate(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateTemplate) (commands.Result[domain.Template], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermSettingsWrite)
	if err != nil {
		return commands.Result[domain.Template]{}, err
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Object: in.TemplateID}
	return h.template(in.TemplateID, g).Run(ctx, h.store, meta(m, p), func(tm *domain.TemplateModel) ([]event.Change, error) {
		if err := tm.In(ws.ID); err != nil {
			return nil, err
		}
		if tm.State().OwnerID != p.Author() && !WorkspaceAdmin(p, ws.ID) {
			return nil, errNotOwner
		}
		return tm.Update(in.input(), h.now())
	})
}

// PresetMembers are a preset's members (seed 002).
type PresetMembers struct {
	Name        *string        `json:"name"`
	Description *string        `json:"description"`
	Settings    *domain.Values `json:"settings"`
}

// CreatePreset is presets.create.
type CreatePreset struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	PresetMembers
}

// UpdatePreset is presets.update.
type UpdatePreset struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	PresetID      string `json:"presetId"`
	PresetMembers
}

func (h *Handlers) preset(id string, g *guard) object[*domain.PresetModel, domain.Preset] {
	return object[*domain.PresetModel, domain.Preset]{StreamType: domain.StreamPreset, ID: id, What: "preset", Guard: g,
		Load: domain.LoadPreset, Answer: (*domain.PresetModel).State}
}

// CreatePreset adds a preset to a workspace (runtime authorization: the
// caller's settings:write must hold in this workspace, not only in the one
// a key is bound to); its creator owns it.
func (h *Handlers) CreatePreset(ctx context.Context, m commands.Meta, p principal.Principal, in CreatePreset) (commands.Result[domain.Preset], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermSettingsWrite)
	if err != nil {
		return commands.Result[domain.Preset]{}, err
	}
	id := newID()
	return h.preset(id, &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}).WithWrites(func(pr domain.Preset) []eventstore.Write {
		return []eventstore.Write{registry.Register(p.OrganizationID, ws.ID, KindPreset, pr.PresetID, "", "")}
	}).Run(ctx, h.store, meta(m, p), func(pm *domain.PresetModel) ([]event.Change, error) {
		return pm.Create(id, ws.ID, p.Author(), domain.PresetInput{Name: in.Name, Description: in.Description, Settings: in.Settings}, h.now())
	})
}

// UpdatePreset changes a preset: its owner or a workspace admin.
func (h *Handlers) UpdatePreset(ctx context.Context, m commands.Meta, p principal.Principal, in UpdatePreset) (commands.Result[domain.Preset], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermSettingsWrite)
	if err != nil {
		return commands.Result[domain.Preset]{}, err
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Object: in.PresetID}
	return h.preset(in.PresetID, g).Run(ctx, h.store, meta(m, p), func(pm *domain.PresetModel) ([]event.Change, error) {
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		if pm.State().OwnerID != p.Author() && !WorkspaceAdmin(p, ws.ID) {
			return nil, errNotOwner
		}
		return pm.Update(domain.PresetInput{Name: in.Name, Description: in.Description, Settings: in.Settings}, h.now())
	})
}
