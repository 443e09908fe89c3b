package studio

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Template is a project template of a workspace (seed 002: name,
// description, promptDefaults, platforms). Its owner (who made it) and the
// workspace's admins may change it.
type Template struct {
	TemplateID     string    `json:"templateId"`
	WorkspaceID    string    `json:"workspaceId"`
	Name           string    `json:"name"`
	Description    *string   `json:"description"`
	PromptDefaults Values    `json:"promptDefaults"`
	Platforms      []string  `json:"platforms"`
	OwnerID        string    `json:"ownerId"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// Preset is a workspace's saved generation settings (seed 002: name,
// description, settings); its owner and the workspace's admins change it.
type Preset struct {
	PresetID    string    `json:"presetId"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Settings    Values    `json:"settings"`
	OwnerID     string    `json:"ownerId"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// TemplateModel is the write model of one template stream.
type TemplateModel struct{ t Template }

func LoadTemplate(history []event.Recorded) (*TemplateModel, error) {
	return templateFold.Load(&TemplateModel{}, history)
}

var templateFold = event.Fold[*TemplateModel]{
	TemplateCreated: event.Apply(func(m *TemplateModel, p TemplateV1) { m.t = p.Template }),
	TemplateUpdated: event.Apply(func(m *TemplateModel, p TemplateV1) { m.t = p.Template }),
}

func (m *TemplateModel) Exists() bool    { return m.t.TemplateID != "" }
func (m *TemplateModel) State() Template { return m.t }

// In reports whether the template is one of the workspace's.
func (m *TemplateModel) In(workspaceID string) error {
	if !m.Exists() || m.t.WorkspaceID != workspaceID {
		return errs.NotFound("project template")
	}
	return nil
}

// TemplateInput is a template's members as a client sends them (nil keeps
// on update; a blank description clears it).
type TemplateInput struct {
	Name           *string
	Description    *string
	PromptDefaults *Values
	Platforms      *[]string
}

func (in TemplateInput) check(creating bool) error {
	var f fields
	f.titleOf("/name", in.Name, creating)
	f.long("/description", in.Description, MaxLongText)
	if in.PromptDefaults != nil {
		f.values("/promptDefaults", *in.PromptDefaults)
	}
	if in.Platforms != nil {
		for i, p := range *in.Platforms {
			f.oneOf("/platforms/"+itoa(i), p, Networks)
		}
	}
	return f.err()
}

// CreateTemplate records a new template owned by ownerID.
func (m *TemplateModel) Create(id, workspaceID, ownerID string, in TemplateInput, now time.Time) ([]event.Change, error) {
	if err := in.check(true); err != nil {
		return nil, err
	}
	if m.Exists() {
		return nil, errs.Conflict("template_exists", "the template already exists")
	}
	t := Template{TemplateID: id, WorkspaceID: workspaceID, PromptDefaults: Values{}, Platforms: []string{}, OwnerID: ownerID,
		CreatedAt: now, UpdatedAt: now}
	applyTemplate(&t, in)
	return []event.Change{event.New(TemplateCreated, TemplateV1{Template: t})}, nil
}

func applyTemplate(t *Template, in TemplateInput) {
	if in.Name != nil {
		t.Name = trim(*in.Name)
	}
	setNullable(&t.Description, in.Description)
	if in.PromptDefaults != nil {
		t.PromptDefaults = *in.PromptDefaults
		if t.PromptDefaults == nil {
			t.PromptDefaults = Values{}
		}
	}
	if in.Platforms != nil {
		t.Platforms = uniqueSorted(*in.Platforms)
	}
}

func uniqueSorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// Update changes a template (who may is the caller's check).
func (m *TemplateModel) Update(in TemplateInput, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project template")
	}
	if err := in.check(false); err != nil {
		return nil, err
	}
	next := m.t
	applyTemplate(&next, in)
	if same(next, m.t) {
		return nil, nil
	}
	next.UpdatedAt = now
	return []event.Change{event.New(TemplateUpdated, TemplateV1{Template: next})}, nil
}

// PresetModel is the write model of one preset stream.
type PresetModel struct{ p Preset }

func LoadPreset(history []event.Recorded) (*PresetModel, error) {
	return presetFold.Load(&PresetModel{}, history)
}

var presetFold = event.Fold[*PresetModel]{
	PresetCreated: event.Apply(func(m *PresetModel, p PresetV1) { m.p = p.Preset }),
	PresetUpdated: event.Apply(func(m *PresetModel, p PresetV1) { m.p = p.Preset }),
}

func (m *PresetModel) Exists() bool  { return m.p.PresetID != "" }
func (m *PresetModel) State() Preset { return m.p }

// In reports whether the preset is one of the workspace's.
func (m *PresetModel) In(workspaceID string) error {
	if !m.Exists() || m.p.WorkspaceID != workspaceID {
		return errs.NotFound("preset")
	}
	return nil
}

// PresetInput is a preset's members (nil keeps on update).
type PresetInput struct {
	Name        *string
	Description *string
	Settings    *Values
}

func (in PresetInput) check(creating bool) error {
	var f fields
	f.titleOf("/name", in.Name, creating)
	f.long("/description", in.Description, MaxLongText)
	if in.Settings != nil {
		f.values("/settings", *in.Settings)
	}
	return f.err()
}

// Create records a new preset owned by ownerID.
func (m *PresetModel) Create(id, workspaceID, ownerID string, in PresetInput, now time.Time) ([]event.Change, error) {
	if err := in.check(true); err != nil {
		return nil, err
	}
	if m.Exists() {
		return nil, errs.Conflict("preset_exists", "the preset already exists")
	}
	p := Preset{PresetID: id, WorkspaceID: workspaceID, Settings: Values{}, OwnerID: ownerID, CreatedAt: now, UpdatedAt: now}
	applyPreset(&p, in)
	return []event.Change{event.New(PresetCreated, PresetV1{Preset: p})}, nil
}

func applyPreset(p *Preset, in PresetInput) {
	if in.Name != nil {
		p.Name = trim(*in.Name)
	}
	setNullable(&p.Description, in.Description)
	if in.Settings != nil {
		p.Settings = *in.Settings
		if p.Settings == nil {
			p.Settings = Values{}
		}
	}
}

// Update changes a preset (who may is the caller's check).
func (m *PresetModel) Update(in PresetInput, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("preset")
	}
	if err := in.check(false); err != nil {
		return nil, err
	}
	next := m.p
	applyPreset(&next, in)
	if same(next, m.p) {
		return nil, nil
	}
	next.UpdatedAt = now
	return []event.Change{event.New(PresetUpdated, PresetV1{Preset: next})}, nil
}
