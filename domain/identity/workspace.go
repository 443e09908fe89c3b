package identity

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Workspaces are an organization's bindable resources (resource type
// `workspace`; seed 000's app_platform_auth.workspaces.list/create/rename/
// default.set). They live on one stream per organization, so the rules
// across workspaces (one default, slugs unique in the organization, at most
// MaxWorkspaces) hold under that stream's lock.
//
// Every organization has a default workspace from its creation without an
// event: its id is the organization's id (the one resource API keys were
// bound to before workspaces had a stream), its slug DefaultWorkspaceSlug.
const (
	StreamWorkspaces = "identity.workspace"

	WorkspaceCreated    = "identity.workspace.created"
	WorkspaceRenamed    = "identity.workspace.renamed"
	WorkspaceDefaultSet = "identity.workspace.default_set"
	WorkspaceDeleted    = "identity.workspace.deleted"

	// DefaultWorkspaceSlug and DefaultWorkspaceName name the implicit default
	// workspace until it is renamed.
	DefaultWorkspaceSlug = "default"
	DefaultWorkspaceName = "Default"
	// MaxWorkspaces bounds an organization's workspaces (the default one included).
	MaxWorkspaces = 100
)

// WorkspacesStreamID is the stream of an organization's workspaces.
func WorkspacesStreamID(organizationID string) string { return "workspaces:" + organizationID }

// WorkspaceInfo is one workspace of an organization.
type WorkspaceInfo struct {
	WorkspaceID string `json:"workspace_id"`
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Default     bool   `json:"default"`
	// CreatedAt is null for the default workspace every organization has
	// from its creation.
	CreatedAt *time.Time `json:"created_at"`
}

// WorkspaceV1 is the payload of every workspace event: the workspace as the
// event leaves it (default_set names the new default; deleted the one gone).
type WorkspaceV1 struct {
	OrganizationID string    `json:"organization_id"`
	WorkspaceID    string    `json:"workspace_id"`
	Slug           string    `json:"slug"`
	Name           string    `json:"name"`
	At             time.Time `json:"at"`
}

// Workspaces is the write model of one organization's workspaces.
type Workspaces struct {
	organizationID string
	list           []WorkspaceInfo // in creation order, the implicit default first
	defaultID      string
}

// LoadWorkspaces folds an organization's workspace stream; before its first
// event the organization has its implicit default workspace.
func LoadWorkspaces(organizationID string) func([]event.Recorded) (*Workspaces, error) {
	return func(history []event.Recorded) (*Workspaces, error) {
		w := &Workspaces{organizationID: organizationID, defaultID: organizationID,
			list: []WorkspaceInfo{{WorkspaceID: organizationID, Slug: DefaultWorkspaceSlug, Name: DefaultWorkspaceName}}}
		return workspacesFold.Load(w, history)
	}
}

var workspacesFold = event.Fold[*Workspaces]{
	WorkspaceCreated: event.Apply(func(w *Workspaces, p WorkspaceV1) {
		w.list = append(w.list, WorkspaceInfo{WorkspaceID: p.WorkspaceID, Slug: p.Slug, Name: p.Name, CreatedAt: &p.At})
	}),
	WorkspaceRenamed: event.Apply(func(w *Workspaces, p WorkspaceV1) {
		if i := w.index(p.WorkspaceID); i >= 0 {
			w.list[i].Slug, w.list[i].Name = p.Slug, p.Name
		}
	}),
	WorkspaceDefaultSet: event.Apply(func(w *Workspaces, p WorkspaceV1) { w.defaultID = p.WorkspaceID }),
	WorkspaceDeleted: event.Apply(func(w *Workspaces, p WorkspaceV1) {
		w.list = slices.DeleteFunc(w.list, func(i WorkspaceInfo) bool { return i.WorkspaceID == p.WorkspaceID })
	}),
}

func (w *Workspaces) index(id string) int {
	return slices.IndexFunc(w.list, func(i WorkspaceInfo) bool { return i.WorkspaceID == id })
}

// List is every workspace, the default marked, in creation order.
func (w *Workspaces) List() []WorkspaceInfo {
	out := make([]WorkspaceInfo, len(w.list))
	for i, ws := range w.list {
		ws.Default = ws.WorkspaceID == w.defaultID
		out[i] = ws
	}
	return out
}

// ByID finds a workspace by id.
func (w *Workspaces) ByID(id string) (WorkspaceInfo, bool) {
	i := w.index(id)
	if i < 0 {
		return WorkspaceInfo{}, false
	}
	return w.List()[i], true
}

// BySlug finds a workspace by slug.
func (w *Workspaces) BySlug(slug string) (WorkspaceInfo, bool) {
	for _, ws := range w.List() {
		if ws.Slug == slug {
			return ws, true
		}
	}
	return WorkspaceInfo{}, false
}

// Default is the organization's default workspace.
func (w *Workspaces) Default() WorkspaceInfo {
	ws, _ := w.ByID(w.defaultID)
	return ws
}

// NewWorkspace is the input of workspaces.create.
type NewWorkspace struct {
	ID, Slug, Name string
}

func checkWorkspaceFields(fields []errs.Field, slug, name *string) []errs.Field {
	if slug != nil && !ValidSlug(*slug) {
		fields = append(fields, errs.Field{Pointer: "/slug", Detail: "lowercase letters and digits with internal hyphens, 3 to 48 characters"})
	}
	if name != nil {
		if text.Trim(*name) == "" {
			fields = append(fields, errs.Field{Pointer: "/name", Detail: "must not be empty"})
		} else {
			fields = text.Line(fields, "/name", *name, text.MaxTitle)
		}
	}
	return fields
}

func (w *Workspaces) slugTaken(slug, except string) bool {
	return slices.ContainsFunc(w.list, func(i WorkspaceInfo) bool { return i.Slug == slug && i.WorkspaceID != except })
}

// Create adds a workspace; its slug must be free in the organization.
func (w *Workspaces) Create(n NewWorkspace, now time.Time) ([]event.Change, error) {
	if f := checkWorkspaceFields(nil, &n.Slug, &n.Name); len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	if w.index(n.ID) >= 0 {
		return nil, errs.Conflict("workspace_exists", "the workspace already exists")
	}
	if w.slugTaken(n.Slug, "") {
		return nil, errs.Conflict("workspace_slug_taken", "another workspace of the organization has this slug")
	}
	if len(w.list) >= MaxWorkspaces {
		return nil, errs.Conflict("workspace_limit_reached", "an organization has at most 100 workspaces")
	}
	return []event.Change{event.New(WorkspaceCreated, WorkspaceV1{OrganizationID: w.organizationID, WorkspaceID: n.ID,
		Slug: n.Slug, Name: text.Trim(n.Name), At: now})}, nil
}

// Rename changes a workspace's name, slug or both (nil keeps a value).
func (w *Workspaces) Rename(id string, slug, name *string, now time.Time) ([]event.Change, error) {
	ws, ok := w.ByID(id)
	if !ok {
		return nil, errs.NotFound("workspace")
	}
	if f := checkWorkspaceFields(nil, slug, name); len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	next := ws
	if slug != nil {
		next.Slug = *slug
	}
	if name != nil {
		next.Name = text.Trim(*name)
	}
	if next == ws {
		return nil, nil
	}
	if w.slugTaken(next.Slug, id) {
		return nil, errs.Conflict("workspace_slug_taken", "another workspace of the organization has this slug")
	}
	return []event.Change{event.New(WorkspaceRenamed, WorkspaceV1{OrganizationID: w.organizationID, WorkspaceID: id,
		Slug: next.Slug, Name: next.Name, At: now})}, nil
}

// SetDefault makes a workspace the organization's default.
func (w *Workspaces) SetDefault(id string, now time.Time) ([]event.Change, error) {
	ws, ok := w.ByID(id)
	if !ok {
		return nil, errs.NotFound("workspace")
	}
	if ws.Default {
		return nil, nil
	}
	return []event.Change{event.New(WorkspaceDefaultSet, WorkspaceV1{OrganizationID: w.organizationID, WorkspaceID: id,
		Slug: ws.Slug, Name: ws.Name, At: now})}, nil
}

// Delete removes a workspace that is not the default one. Whether it is
// empty is for the services holding its content to say (studio's
// workspaces.delete checks its own tables in the same transaction).
func (w *Workspaces) Delete(id string, now time.Time) ([]event.Change, error) {
	ws, ok := w.ByID(id)
	if !ok {
		return nil, errs.NotFound("workspace")
	}
	if ws.Default {
		return nil, errs.Conflict("default_workspace", "the organization's default workspace cannot be deleted; make another one the default first")
	}
	return []event.Change{event.New(WorkspaceDeleted, WorkspaceV1{OrganizationID: w.organizationID, WorkspaceID: id,
		Slug: ws.Slug, Name: ws.Name, At: now})}, nil
}

// WorkspaceList is the answer of workspaces.list and of each workspace command.
type WorkspaceList struct {
	Workspaces []WorkspaceInfo `json:"workspaces"`
}

// State answers with every workspace.
func (w *Workspaces) State() WorkspaceList { return WorkspaceList{Workspaces: w.List()} }
