package studio

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Aspect ratios of a composition version (seed 002).
const (
	AspectPortrait  = "portrait_9_16"
	AspectLandscape = "landscape_16_9"
)

var AspectRatios = []string{AspectPortrait, AspectLandscape}

// Source kinds of a composition version (seed 002).
var SourceKinds = []string{"manual", "ai_generated", "imported"}

// Generation statuses of a composition version (seed 002), the same machine
// as a job's: pending -> queued -> running -> completed | failed |
// cancelled; pending and queued may be cancelled or fail at once; a
// terminal status stays (409 invalid_transition).
const (
	GenPending   = "pending"
	GenQueued    = "queued"
	GenRunning   = "running"
	GenCompleted = "completed"
	GenFailed    = "failed"
	GenCancelled = "cancelled"
)

var GenerationStatuses = []string{GenPending, GenQueued, GenRunning, GenCompleted, GenFailed, GenCancelled}

// generationMoves is the composition generation machine: from a status, the
// statuses an update may set (the same status again changes nothing).
var generationMoves = map[string][]string{
	GenPending: {GenQueued, GenRunning, GenCompleted, GenFailed, GenCancelled},
	GenQueued:  {GenPending, GenRunning, GenCompleted, GenFailed, GenCancelled},
	GenRunning: {GenQueued, GenCompleted, GenFailed, GenCancelled},
}

// Composition is one composition version of a project.
type Composition struct {
	CompositionVersionID string    `json:"compositionVersionId"`
	ProjectID            string    `json:"projectId"`
	WorkspaceID          string    `json:"workspaceId"`
	Title                string    `json:"title"`
	AspectRatio          string    `json:"aspectRatio"`
	Snapshot             Snapshot  `json:"snapshot"`
	Notes                []string  `json:"notes"`
	SourceKind           string    `json:"sourceKind"`
	GenerationStatus     string    `json:"generationStatus"`
	Revision             int       `json:"revision"`
	CreatedBy            string    `json:"createdBy"`
	CreatedAt            time.Time `json:"createdAt"`
	UpdatedAt            time.Time `json:"updatedAt"`
}

// CompositionModel is the write model of one composition version stream.
type CompositionModel struct{ c Composition }

func LoadComposition(history []event.Recorded) (*CompositionModel, error) {
	return compositionFold.Load(&CompositionModel{}, history)
}

var compositionFold = event.Fold[*CompositionModel]{
	CompositionCreated: event.Apply(func(m *CompositionModel, p CompositionV1) { m.c = p.Composition }),
	CompositionUpdated: event.Apply(func(m *CompositionModel, p CompositionV1) { m.c = p.Composition }),
}

func (m *CompositionModel) Exists() bool       { return m.c.CompositionVersionID != "" }
func (m *CompositionModel) State() Composition { return m.c }

// In reports whether the version belongs to the project in the workspace.
func (m *CompositionModel) In(workspaceID, projectID string) error {
	if !m.Exists() || m.c.WorkspaceID != workspaceID || m.c.ProjectID != projectID {
		return errs.NotFound("composition version")
	}
	return nil
}

// NewComposition is the input of projects.compositions.create.
type NewComposition struct {
	ID, ProjectID, WorkspaceID, CreatedBy string
	Title                                 string
	AspectRatio                           string
	Snapshot                              Snapshot
	Notes                                 []string
	SourceKind                            string // default manual
	GenerationStatus                      string // default completed (manual), pending otherwise
}

func checkNotes(f *fields, notes []string) {
	if len(notes) > MaxNotes {
		f.add("/notes", "at most %d notes", MaxNotes)
		return
	}
	for i, n := range notes {
		if trim(n) == "" {
			f.add("/notes/"+itoa(i), "must not be empty")
			continue
		}
		s := n
		f.long("/notes/"+itoa(i), &s, MaxLongText)
	}
}

func checkSnapshot(f *fields, s Snapshot) {
	if len(s.Scenes) == 0 {
		f.add("/snapshot/scenes", "a snapshot has at least one scene")
	}
	for _, e := range s.Validate() {
		f.add("/snapshot"+e.Pointer, "%s", e.Detail)
	}
}

// Create records a new composition version.
func (m *CompositionModel) Create(n NewComposition, now time.Time) ([]event.Change, error) {
	if n.SourceKind == "" {
		n.SourceKind = "manual"
	}
	if n.GenerationStatus == "" {
		n.GenerationStatus = GenCompleted
		if n.SourceKind == "ai_generated" {
			n.GenerationStatus = GenPending
		}
	}
	var f fields
	f.title("/title", n.Title)
	f.oneOf("/aspectRatio", n.AspectRatio, AspectRatios)
	f.oneOf("/sourceKind", n.SourceKind, SourceKinds)
	f.oneOf("/generationStatus", n.GenerationStatus, GenerationStatuses)
	checkNotes(&f, n.Notes)
	checkSnapshot(&f, n.Snapshot)
	if err := f.err(); err != nil {
		return nil, err
	}
	if m.Exists() {
		return nil, errs.Conflict("composition_exists", "the composition version already exists")
	}
	notes := n.Notes
	if notes == nil {
		notes = []string{}
	}
	c := Composition{CompositionVersionID: n.ID, ProjectID: n.ProjectID, WorkspaceID: n.WorkspaceID, Title: trim(n.Title),
		AspectRatio: n.AspectRatio, Snapshot: n.Snapshot, Notes: notes, SourceKind: n.SourceKind, GenerationStatus: n.GenerationStatus,
		Revision: 1, CreatedBy: n.CreatedBy, CreatedAt: now, UpdatedAt: now}
	return []event.Change{event.New(CompositionCreated, CompositionV1{Composition: c})}, nil
}

// CompositionChange is the input of projects.compositions.update (nil keeps).
type CompositionChange struct {
	Title            *string
	AspectRatio      *string
	Snapshot         *Snapshot
	Notes            *[]string
	GenerationStatus *string
}

// Update changes a composition version; a generation status moves only
// along the machine (generationMoves).
func (m *CompositionModel) Update(c CompositionChange, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("composition version")
	}
	var f fields
	if c.Title != nil {
		f.title("/title", *c.Title)
	}
	if c.AspectRatio != nil {
		f.oneOf("/aspectRatio", *c.AspectRatio, AspectRatios)
	}
	if c.GenerationStatus != nil {
		f.oneOf("/generationStatus", *c.GenerationStatus, GenerationStatuses)
	}
	if c.Notes != nil {
		checkNotes(&f, *c.Notes)
	}
	if c.Snapshot != nil {
		checkSnapshot(&f, *c.Snapshot)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	next := m.c
	if c.Title != nil {
		next.Title = trim(*c.Title)
	}
	if c.AspectRatio != nil {
		next.AspectRatio = *c.AspectRatio
	}
	if c.Snapshot != nil {
		next.Snapshot = *c.Snapshot
	}
	if c.Notes != nil {
		next.Notes = slices.Clone(*c.Notes)
		if next.Notes == nil {
			next.Notes = []string{}
		}
	}
	if c.GenerationStatus != nil && *c.GenerationStatus != m.c.GenerationStatus {
		if !slices.Contains(generationMoves[m.c.GenerationStatus], *c.GenerationStatus) {
			return nil, invalidTransition("generation status", m.c.GenerationStatus, *c.GenerationStatus)
		}
		next.GenerationStatus = *c.GenerationStatus
	}
	if same(next, m.c) {
		return nil, nil
	}
	next.Revision++
	next.UpdatedAt = now
	return []event.Change{event.New(CompositionUpdated, CompositionV1{Composition: next})}, nil
}

// invalidTransition is the one answer of a move a state machine refuses.
func invalidTransition(what, from, to string) error {
	return errs.Conflict("invalid_transition", "the "+what+" cannot move from "+from+" to "+to)
}
