package studio

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Project is a studio project as clients see it (seed 002's fields, plus
// its brief and plan state).
type Project struct {
	ProjectID   string  `json:"projectId"`
	WorkspaceID string  `json:"workspaceId"`
	Title       string  `json:"title"`
	Objective   *string `json:"objective"`
	TemplateID  *string `json:"templateId"`
	BrandKitID  *string `json:"brandKitId"`
	Brief       Brief   `json:"brief"`
	SceneCount  int     `json:"sceneCount"`
	// PlanID is the creative plan the scenes came from (null: none yet).
	PlanID *string `json:"planId"`
	// DuplicatedFrom is the project this one is a copy of.
	DuplicatedFrom *string   `json:"duplicatedFrom"`
	CreatedBy      string    `json:"createdBy"`
	Deleted        bool      `json:"deleted"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// Brief is the project's structured brief (seed 002: title, objective,
// audience, styleNotes).
type Brief struct {
	Title      *string `json:"title"`
	Objective  *string `json:"objective"`
	Audience   *string `json:"audience"`
	StyleNotes *string `json:"styleNotes"`
}

// Scene is one scene of a project's plan.
type Scene struct {
	SceneID     string  `json:"sceneId"`
	Position    int     `json:"position"`
	Title       string  `json:"title"`
	Description *string `json:"description"`
	Prompt      *string `json:"prompt"`
	DurationMs  int     `json:"durationMs"`
}

// Approval states.
const (
	ApprovalStateRequested = "requested"
	ApprovalStateApproved  = "approved"
	ApprovalStateRejected  = "rejected"
)

// Approval is one request to review a project.
type Approval struct {
	ApprovalRequestID string     `json:"approvalRequestId"`
	ProjectID         string     `json:"projectId"`
	Status            string     `json:"status"`
	ReviewerUserID    string     `json:"reviewerUserId"`
	RequestedByUserID string     `json:"requestedByUserId"`
	Note              *string    `json:"note"`
	DecidedBy         *string    `json:"decidedBy"`
	DecisionNote      *string    `json:"decisionNote"`
	RequestedAt       time.Time  `json:"requestedAt"`
	DecidedAt         *time.Time `json:"decidedAt"`
}

// ProjectModel is the write model of one project stream.
type ProjectModel struct {
	project   Project
	scenes    []Scene
	approvals []Approval
}

// LoadProject folds a project's history.
func LoadProject(history []event.Recorded) (*ProjectModel, error) {
	return projectFold.Load(&ProjectModel{}, history)
}

var projectFold = event.Fold[*ProjectModel]{
	ProjectCreated:      event.Apply((*ProjectModel).projectChanged),
	ProjectUpdated:      event.Apply((*ProjectModel).projectChanged),
	ProjectDeleted:      event.Apply((*ProjectModel).projectChanged),
	ProjectBriefUpdated: event.Apply((*ProjectModel).projectChanged),
	SceneAdded: event.Apply(func(m *ProjectModel, p SceneV1) {
		m.scenes = append(m.scenes, p.Scene)
		m.sceneCountAfter(p)
	}),
	SceneUpdated: event.Apply(func(m *ProjectModel, p SceneV1) {
		if i := m.sceneIndex(p.Scene.SceneID); i >= 0 {
			m.scenes[i] = p.Scene
		}
		m.sceneCountAfter(p)
	}),
	SceneRemoved: event.Apply(func(m *ProjectModel, p SceneV1) {
		m.scenes = slices.DeleteFunc(m.scenes, func(s Scene) bool { return s.SceneID == p.Scene.SceneID })
		m.renumber()
		m.sceneCountAfter(p)
	}),
	PlanReady: event.Apply(func(m *ProjectModel, p PlanV1) {
		m.scenes = slices.Clone(p.Scenes)
		m.project.PlanID, m.project.SceneCount, m.project.UpdatedAt = &p.PlanID, len(p.Scenes), p.At
	}),
	ApprovalRequested: event.Apply((*ProjectModel).approvalChanged),
	ApprovalApproved:  event.Apply((*ProjectModel).approvalChanged),
	ApprovalRejected:  event.Apply((*ProjectModel).approvalChanged),
}

func (m *ProjectModel) projectChanged(p ProjectV1) { m.project = p.Project }

// sceneCountAfter keeps the count the event says and the scenes in
// position order (an insert moves the ones after it in the same command).
func (m *ProjectModel) sceneCountAfter(p SceneV1) {
	m.project.SceneCount, m.project.UpdatedAt = p.SceneCount, p.At
	slices.SortStableFunc(m.scenes, func(a, b Scene) int { return a.Position - b.Position })
}

func (m *ProjectModel) approvalChanged(p ApprovalV1) {
	if i := slices.IndexFunc(m.approvals, func(a Approval) bool { return a.ApprovalRequestID == p.Approval.ApprovalRequestID }); i >= 0 {
		m.approvals[i] = p.Approval
		return
	}
	m.approvals = append(m.approvals, p.Approval)
}

func (m *ProjectModel) sceneIndex(id string) int {
	return slices.IndexFunc(m.scenes, func(s Scene) bool { return s.SceneID == id })
}

func (m *ProjectModel) renumber() {
	for i := range m.scenes {
		m.scenes[i].Position = i + 1
	}
}

// Exists: created and not deleted.
func (m *ProjectModel) Exists() bool { return m.project.ProjectID != "" && !m.project.Deleted }

// State is the project.
func (m *ProjectModel) State() Project { return m.project }

// Scenes are the project's scenes in order.
func (m *ProjectModel) Scenes() []Scene { return slices.Clone(m.scenes) }

// Scene finds one scene.
func (m *ProjectModel) Scene(id string) (Scene, bool) {
	i := m.sceneIndex(id)
	if i < 0 {
		return Scene{}, false
	}
	return m.scenes[i], true
}

// Approvals are the project's approval requests, oldest first.
func (m *ProjectModel) Approvals() []Approval { return slices.Clone(m.approvals) }

// Approval finds one approval request.
func (m *ProjectModel) Approval(id string) (Approval, bool) {
	i := slices.IndexFunc(m.approvals, func(a Approval) bool { return a.ApprovalRequestID == id })
	if i < 0 {
		return Approval{}, false
	}
	return m.approvals[i], true
}

// In reports whether the project exists in a workspace: another workspace's
// project is a missing one.
func (m *ProjectModel) In(workspaceID string) error {
	if !m.Exists() || m.project.WorkspaceID != workspaceID {
		return errs.NotFound("project")
	}
	return nil
}

// NewProject is the input of projects.create (and of a duplicate).
type NewProject struct {
	ID, WorkspaceID, CreatedBy string
	Title                      string
	Objective                  *string
	TemplateID                 *string
	BrandKitID                 *string
	Brief                      Brief
	Scenes                     []Scene
	DuplicatedFrom             *string
}

func (n NewProject) validate() error {
	var f fields
	f.title("/title", n.Title)
	f.long("/objective", n.Objective, MaxLongText)
	f.line("/templateId", n.TemplateID, MaxRef)
	f.line("/brandKitId", n.BrandKitID, MaxRef)
	return f.err()
}

// Create starts a project (with the scenes of a duplicated one).
func (m *ProjectModel) Create(n NewProject, now time.Time) ([]event.Change, error) {
	if err := n.validate(); err != nil {
		return nil, err
	}
	if m.project.ProjectID != "" {
		return nil, errs.Conflict("project_exists", "the project already exists")
	}
	p := Project{ProjectID: n.ID, WorkspaceID: n.WorkspaceID, Title: trim(n.Title), Objective: clean(n.Objective),
		TemplateID: clean(n.TemplateID), BrandKitID: clean(n.BrandKitID), Brief: n.Brief, DuplicatedFrom: n.DuplicatedFrom,
		CreatedBy: n.CreatedBy, CreatedAt: now, UpdatedAt: now}
	changes := []event.Change{event.New(ProjectCreated, ProjectV1{Project: p})}
	for i, s := range n.Scenes {
		s.Position = i + 1
		changes = append(changes, event.New(SceneAdded, SceneV1{ProjectID: n.ID, WorkspaceID: n.WorkspaceID, Scene: s, SceneCount: i + 1, At: now}))
	}
	return changes, nil
}

// ProjectChange is the input of projects.update: nil keeps a member; a
// nullable member set to "" clears it.
type ProjectChange struct {
	Title      *string
	Objective  *string
	TemplateID *string
	BrandKitID *string
}

// Update changes the project's own members.
func (m *ProjectModel) Update(c ProjectChange, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	var f fields
	if c.Title != nil {
		f.title("/title", *c.Title)
	}
	f.long("/objective", c.Objective, MaxLongText)
	f.line("/templateId", c.TemplateID, MaxRef)
	f.line("/brandKitId", c.BrandKitID, MaxRef)
	if err := f.err(); err != nil {
		return nil, err
	}
	next := m.project
	if c.Title != nil {
		next.Title = trim(*c.Title)
	}
	setNullable(&next.Objective, c.Objective)
	setNullable(&next.TemplateID, c.TemplateID)
	setNullable(&next.BrandKitID, c.BrandKitID)
	if sameProject(next, m.project) {
		return nil, nil
	}
	next.UpdatedAt = now
	return []event.Change{event.New(ProjectUpdated, ProjectV1{Project: next})}, nil
}

// setNullable applies an optional member: nil keeps, blank clears.
func setNullable(dst **string, v *string) {
	if v != nil {
		*dst = clean(v)
	}
}

func sameProject(a, b Project) bool {
	return a.Title == b.Title && eq(a.Objective, b.Objective) && eq(a.TemplateID, b.TemplateID) && eq(a.BrandKitID, b.BrandKitID) &&
		sameBrief(a.Brief, b.Brief)
}

func sameBrief(a, b Brief) bool {
	return eq(a.Title, b.Title) && eq(a.Objective, b.Objective) && eq(a.Audience, b.Audience) && eq(a.StyleNotes, b.StyleNotes)
}

func eq(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Delete removes the project from every read; its record stays.
func (m *ProjectModel) Delete(now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	next := m.project
	next.Deleted, next.UpdatedAt = true, now
	return []event.Change{event.New(ProjectDeleted, ProjectV1{Project: next})}, nil
}

// BriefChange is the input of projects.structured_brief.update (nil keeps,
// blank clears).
type BriefChange struct {
	Title, Objective, Audience, StyleNotes *string
}

// UpdateBrief changes the structured brief.
func (m *ProjectModel) UpdateBrief(c BriefChange, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	var f fields
	f.line("/title", c.Title, MaxTitle)
	f.long("/objective", c.Objective, MaxLongText)
	f.long("/audience", c.Audience, MaxLongText)
	f.long("/styleNotes", c.StyleNotes, MaxLongText)
	if err := f.err(); err != nil {
		return nil, err
	}
	next := m.project
	setNullable(&next.Brief.Title, c.Title)
	setNullable(&next.Brief.Objective, c.Objective)
	setNullable(&next.Brief.Audience, c.Audience)
	setNullable(&next.Brief.StyleNotes, c.StyleNotes)
	if sameBrief(next.Brief, m.project.Brief) {
		return nil, nil
	}
	next.UpdatedAt = now
	return []event.Change{event.New(ProjectBriefUpdated, ProjectV1{Project: next})}, nil
}

// SceneInput is a scene's members as a client sends them.
type SceneInput struct {
	Title       *string
	Description *string
	Prompt      *string
	DurationMs  *int
	// Position, when set, moves the scene (1 is the first).
	Position *int
}

func (in SceneInput) validate(creating bool) error {
	var f fields
	f.titleOf("/title", in.Title, creating)
	f.long("/description", in.Description, MaxLongText)
	f.long("/prompt", in.Prompt, MaxPrompt)
	if in.DurationMs != nil && (*in.DurationMs < MinSceneMs || *in.DurationMs > MaxSceneMs) {
		f.add("/durationMs", "must be %d to %d", MinSceneMs, MaxSceneMs)
	}
	return f.err()
}

// DefaultSceneMs is a new scene's duration when none is given.
const DefaultSceneMs = 3000

// AddScene appends a scene (or inserts it at Position).
func (m *ProjectModel) AddScene(id string, in SceneInput, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	if err := in.validate(true); err != nil {
		return nil, err
	}
	if len(m.scenes) >= MaxScenes {
		return nil, errs.Conflict("scene_limit_reached", "a project has at most 100 scenes")
	}
	if m.sceneIndex(id) >= 0 {
		return nil, errs.Conflict("scene_exists", "the scene already exists")
	}
	s := Scene{SceneID: id, Title: trim(*in.Title), Description: clean(in.Description), Prompt: clean(in.Prompt),
		DurationMs: DefaultSceneMs, Position: len(m.scenes) + 1}
	if in.DurationMs != nil {
		s.DurationMs = *in.DurationMs
	}
	if in.Position != nil && *in.Position >= 1 && *in.Position <= len(m.scenes) {
		s.Position = *in.Position
	}
	changes := []event.Change{event.New(SceneAdded, m.sceneEvent(s, len(m.scenes)+1, now))}
	// Scenes after an inserted one move down: each move is the scene's update.
	for _, other := range m.scenes {
		if other.Position >= s.Position {
			other.Position++
			changes = append(changes, event.New(SceneUpdated, m.sceneEvent(other, len(m.scenes)+1, now)))
		}
	}
	return changes, nil
}

func (m *ProjectModel) sceneEvent(s Scene, count int, now time.Time) SceneV1 {
	return SceneV1{ProjectID: m.project.ProjectID, WorkspaceID: m.project.WorkspaceID, Scene: s, SceneCount: count, At: now}
}

// UpdateScene changes a scene (nil keeps; blank clears description and prompt).
func (m *ProjectModel) UpdateScene(id string, in SceneInput, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	i := m.sceneIndex(id)
	if i < 0 {
		return nil, errs.NotFound("scene")
	}
	if err := in.validate(false); err != nil {
		return nil, err
	}
	s := m.scenes[i]
	next := s
	if in.Title != nil {
		next.Title = trim(*in.Title)
	}
	setNullable(&next.Description, in.Description)
	setNullable(&next.Prompt, in.Prompt)
	if in.DurationMs != nil {
		next.DurationMs = *in.DurationMs
	}
	var changes []event.Change
	if in.Position != nil && *in.Position != s.Position {
		to := min(max(*in.Position, 1), len(m.scenes))
		next.Position = to
		order := slices.Clone(m.scenes)
		order = slices.Delete(order, i, i+1)
		order = slices.Insert(order, to-1, next)
		for j, o := range order {
			if o.SceneID != id && o.Position != j+1 {
				o.Position = j + 1
				changes = append(changes, event.New(SceneUpdated, m.sceneEvent(o, len(m.scenes), now)))
			}
		}
	}
	if next == s && len(changes) == 0 {
		return nil, nil
	}
	return append([]event.Change{event.New(SceneUpdated, m.sceneEvent(next, len(m.scenes), now))}, changes...), nil
}

// RemoveScene deletes a scene; the ones after it move up.
func (m *ProjectModel) RemoveScene(id string, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	s, ok := m.Scene(id)
	if !ok {
		return nil, errs.NotFound("scene")
	}
	return []event.Change{event.New(SceneRemoved, m.sceneEvent(s, len(m.scenes)-1, now))}, nil
}

// PersistPlan records a creative plan with its scenes (a planning job's
// outcome, or a plan written elsewhere): the project's scenes become the
// plan's, and the plan is ready for review (studio.plan.ready). The same plan
// id again changes nothing.
func (m *ProjectModel) PersistPlan(planID string, generationID *string, scenes []SceneInput, ids []string, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	if m.project.PlanID != nil && *m.project.PlanID == planID {
		return nil, nil
	}
	if len(scenes) > MaxScenes || len(scenes) != len(ids) {
		return nil, errs.InvalidField("/scenes", "a plan has at most 100 scenes, each with an id")
	}
	out := make([]Scene, len(scenes))
	var f fields
	for i, in := range scenes {
		if err := in.validate(true); err != nil {
			for _, fe := range err.(*errs.Error).Fields {
				f.add("/scenes/"+itoa(i)+fe.Pointer, "%s", fe.Detail)
			}
			continue
		}
		out[i] = Scene{SceneID: ids[i], Position: i + 1, Title: trim(*in.Title), Description: clean(in.Description),
			Prompt: clean(in.Prompt), DurationMs: DefaultSceneMs}
		if in.DurationMs != nil {
			out[i].DurationMs = *in.DurationMs
		}
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	return []event.Change{event.New(PlanReady, PlanV1{ProjectID: m.project.ProjectID, WorkspaceID: m.project.WorkspaceID,
		PlanID: planID, GenerationID: generationID, Scenes: out, At: now})}, nil
}

// ApprovalRequest is the input of projects.approvals.request.
type ApprovalRequest struct {
	ID                string
	ReviewerUserID    string
	RequestedByUserID string
	Note              *string
	// ReviewerActive: the reviewer is an active member of the organization
	// (the caller looked it up on the write side).
	ReviewerActive bool
}

// RequestApproval asks a reviewer to approve the project; one request is
// open at a time.
func (m *ProjectModel) RequestApproval(r ApprovalRequest, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	var f fields
	f.long("/note", r.Note, MaxLongText)
	if !r.ReviewerActive {
		f.add("/reviewerUserId", "must be an active member of the organization")
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if slices.ContainsFunc(m.approvals, func(a Approval) bool { return a.Status == ApprovalStateRequested }) {
		return nil, errs.Conflict("approval_pending", "the project already has an open approval request: approve or reject it first")
	}
	a := Approval{ApprovalRequestID: r.ID, ProjectID: m.project.ProjectID, Status: ApprovalStateRequested,
		ReviewerUserID: r.ReviewerUserID, RequestedByUserID: r.RequestedByUserID, Note: clean(r.Note), RequestedAt: now}
	return []event.Change{event.New(ApprovalRequested, ApprovalV1{ProjectID: m.project.ProjectID, WorkspaceID: m.project.WorkspaceID, Approval: a})}, nil
}

// DecideApproval approves or rejects an open request. Who may decide (the
// reviewer or a workspace admin) is the caller's check.
func (m *ProjectModel) DecideApproval(id string, approve bool, by string, note *string, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("project")
	}
	a, ok := m.Approval(id)
	if !ok {
		return nil, errs.NotFound("approval request")
	}
	var f fields
	f.long("/note", note, MaxLongText)
	if err := f.err(); err != nil {
		return nil, err
	}
	if a.Status != ApprovalStateRequested {
		return nil, errs.Conflict("invalid_transition", "the approval request was already "+a.Status)
	}
	a.DecidedBy, a.DecisionNote, a.DecidedAt = &by, clean(note), &now
	typ := ApprovalRejected
	a.Status = ApprovalStateRejected
	if approve {
		typ, a.Status = ApprovalApproved, ApprovalStateApproved
	}
	return []event.Change{event.New(typ, ApprovalV1{ProjectID: m.project.ProjectID, WorkspaceID: m.project.WorkspaceID, Approval: a})}, nil
}
