package design

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Project groups designs in a workspace (a campaign, a client).
type Project struct {
	ProjectID   string    `json:"projectId"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	CreatedBy   string    `json:"createdBy"`
	Deleted     bool      `json:"deleted"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// ProjectModel is the write model of a project's stream.
type ProjectModel struct{ p Project }

func LoadProject(history []event.Recorded) (*ProjectModel, error) {
	return projectFold.Load(&ProjectModel{}, history)
}

var projectFold = event.Fold[*ProjectModel]{
	ProjectCreated: event.Apply((*ProjectModel).set), ProjectUpdated: event.Apply((*ProjectModel).set),
	ProjectDeleted: event.Apply((*ProjectModel).set),
}

func (m *ProjectModel) set(p ProjectV1) { m.p = p.Project }

func (m *ProjectModel) State() Project { return m.p }

// In reports a live project of the workspace (404 otherwise).
func (m *ProjectModel) In(workspaceID string) error {
	if m.p.ProjectID == "" || m.p.Deleted || m.p.WorkspaceID != workspaceID {
		return errs.NotFound("project")
	}
	return nil
}

func checkProject(name string, description *string) error {
	var f fields
	f.name("/name", name, MaxName)
	if description != nil {
		f = text.MultiLine(f, "/description", *description, MaxDescription)
	}
	return f.err()
}

// NewProject is projects.create's input.
type NewProject struct {
	ID, WorkspaceID, Name, CreatedBy string
	Description                      *string
}

func (m *ProjectModel) Create(n NewProject, now time.Time) ([]event.Change, error) {
	if err := checkProject(n.Name, n.Description); err != nil {
		return nil, err
	}
	if m.p.ProjectID != "" {
		return nil, errs.Conflict("project_exists", "the project already exists")
	}
	p := Project{ProjectID: n.ID, WorkspaceID: n.WorkspaceID, Name: text.Trim(n.Name), Description: n.Description,
		CreatedBy: n.CreatedBy, CreatedAt: now, UpdatedAt: now}
	return []event.Change{event.New(ProjectCreated, ProjectV1{Project: p})}, nil
}

// Update renames the project or changes its description ("" clears it).
func (m *ProjectModel) Update(name, description *string, now time.Time) ([]event.Change, error) {
	next := m.p
	if name != nil {
		next.Name = text.Trim(*name)
	}
	if description != nil {
		next.Description = description
		if text.Trim(*description) == "" {
			next.Description = nil
		}
	}
	if err := checkProject(next.Name, next.Description); err != nil {
		return nil, err
	}
	if next.Name == m.p.Name && eq(next.Description, m.p.Description) {
		return nil, nil
	}
	next.UpdatedAt = now
	return []event.Change{event.New(ProjectUpdated, ProjectV1{Project: next})}, nil
}

// Delete removes the project; the caller checked it holds no live design.
func (m *ProjectModel) Delete(now time.Time) ([]event.Change, error) {
	next := m.p
	next.Deleted, next.UpdatedAt = true, now
	return []event.Change{event.New(ProjectDeleted, ProjectV1{Project: next})}, nil
}

func eq(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
