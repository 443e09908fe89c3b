package design

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Design is a governed design: its content, the brand kit version it pins
// (what its colours and fonts must come from) and its revision (each change
// of content or kit version counts one; an export renders one revision).
type Design struct {
	DesignID          string `json:"designId"`
	ProjectID         string `json:"projectId"`
	WorkspaceID       string `json:"workspaceId"`
	Name              string `json:"name"`
	BrandKitID        string `json:"brandKitId"`
	BrandKitVersionID string `json:"brandKitVersionId"`
	Content
	Revision  int       `json:"revision"`
	CreatedBy string    `json:"createdBy"`
	Deleted   bool      `json:"deleted"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// DesignModel is the write model of a design's stream; it keeps every
// revision's content (an export renders the revision it was asked for,
// whatever came after).
type DesignModel struct {
	d         Design
	revisions map[int]Design
}

func LoadDesign(history []event.Recorded) (*DesignModel, error) {
	return designFold.Load(&DesignModel{}, history)
}

var designFold = event.Fold[*DesignModel]{
	DesignCreated: event.Apply((*DesignModel).set), DesignUpdated: event.Apply((*DesignModel).set),
	DesignRebranded: event.Apply((*DesignModel).set), DesignDeleted: event.Apply((*DesignModel).set),
}

func (m *DesignModel) set(p DesignV1) {
	m.d = p.Design
	if m.revisions == nil {
		m.revisions = map[int]Design{}
	}
	m.revisions[p.Design.Revision] = p.Design
}

func (m *DesignModel) State() Design { return m.d }

// Revision is the design as it was at a revision.
func (m *DesignModel) Revision(n int) (Design, bool) {
	d, ok := m.revisions[n]
	return d, ok
}

// In reports a live design of the workspace (404 otherwise).
func (m *DesignModel) In(workspaceID string) error {
	if m.d.DesignID == "" || m.d.Deleted || m.d.WorkspaceID != workspaceID {
		return errs.NotFound("design")
	}
	return nil
}

// NewDesign is designs.create's input, its kit version resolved.
type NewDesign struct {
	ID, ProjectID, WorkspaceID, Name, CreatedBy string
	Kit                                         brands.Version
	Content                                     Content
}

// Create starts a design pinned to a kit version, its content governed by it.
func (m *DesignModel) Create(n NewDesign, now time.Time) ([]event.Change, error) {
	var f fields
	f.name("/name", n.Name, MaxName)
	err := Governed(&n.Content, n.Kit.Content)
	if err := join(f.err(), err); err != nil {
		return nil, err
	}
	if m.d.DesignID != "" {
		return nil, errs.Conflict("design_exists", "the design already exists")
	}
	d := Design{DesignID: n.ID, ProjectID: n.ProjectID, WorkspaceID: n.WorkspaceID, Name: text.Trim(n.Name), BrandKitID: n.Kit.KitID,
		BrandKitVersionID: n.Kit.VersionID, Content: n.Content, Revision: 1, CreatedBy: n.CreatedBy, CreatedAt: now, UpdatedAt: now}
	return []event.Change{event.New(DesignCreated, DesignV1{Design: d})}, nil
}

// Update renames the design or replaces its content (governed by the kit
// version it pins: kit is that version's content). Nothing changed is no
// event; a content change counts a revision.
func (m *DesignModel) Update(name *string, content *Content, kit brands.Content, now time.Time) ([]event.Change, error) {
	var f fields
	next := m.d
	if name != nil {
		f.name("/name", *name, MaxName)
		next.Name = text.Trim(*name)
	}
	var err error
	if content != nil {
		err = Governed(content, kit)
		next.Content = *content
	}
	if err := join(f.err(), err); err != nil {
		return nil, err
	}
	if sameContent(next.Content, m.d.Content) && next.Name == m.d.Name {
		return nil, nil
	}
	if !sameContent(next.Content, m.d.Content) {
		next.Revision++
	}
	next.UpdatedAt = now
	return []event.Change{event.New(DesignUpdated, DesignV1{Design: next})}, nil
}

// Rebrand pins the design to another version of a kit (its kit's later
// version, or another kit): the content must be governed by it, at the
// same pointers. A design never follows a kit by itself: a version
// published later changes nothing until this is asked.
func (m *DesignModel) Rebrand(kit brands.Version, now time.Time) ([]event.Change, error) {
	next := m.d
	next.Content = cloneContent(m.d.Content)
	if err := Governed(&next.Content, kit.Content); err != nil {
		return nil, err
	}
	if kit.VersionID == m.d.BrandKitVersionID {
		return nil, nil
	}
	next.BrandKitID, next.BrandKitVersionID, next.UpdatedAt = kit.KitID, kit.VersionID, now
	next.Revision++
	return []event.Change{event.New(DesignRebranded, DesignV1{Design: next})}, nil
}

// Delete removes the design (its exports stay readable until erased).
func (m *DesignModel) Delete(now time.Time) ([]event.Change, error) {
	next := m.d
	next.Deleted, next.UpdatedAt = true, now
	return []event.Change{event.New(DesignDeleted, DesignV1{Design: next})}, nil
}

func sameContent(a, b Content) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func cloneContent(c Content) Content {
	var out Content
	raw, _ := json.Marshal(c)
	_ = json.Unmarshal(raw, &out)
	return out
}

// join merges two 422s into one with every failing member.
func join(a, b error) error {
	ea, oka := errs.As(a)
	eb, okb := errs.As(b)
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case oka && okb:
		return errs.Invalid(append(append([]errs.Field{}, ea.Fields...), eb.Fields...)...)
	}
	return a
}
