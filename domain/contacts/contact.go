package contacts

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
)

// Contact is a contact's whole state: the write model's row, the answer of
// contact commands, and what every change event carries.
type Contact struct {
	ContactID string `json:"contact_id"`
	Fields
	PipelineID     string     `json:"pipeline_id"`
	StageID        string     `json:"stage_id"`
	StageEnteredAt time.Time  `json:"stage_entered_at"`
	Deleted        bool       `json:"deleted"`
	DeletedAt      *time.Time `json:"deleted_at"`
	// Revision counts the contact's changes, from 1, over all the streams
	// that change it (its own and imports').
	Revision  int       `json:"revision"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Live reports a contact that exists and is not soft-deleted: the only
// kind commands act on and imports match.
func (c Contact) Live() bool { return c.Revision > 0 && !c.Deleted }

// NewContact decides a contact's creation: normalized, valid fields, in
// the given stage of the pipeline (its first when stageID is empty).
func NewContact(id string, f Fields, p Pipeline, stageID string, now time.Time) (Change, error) {
	f = f.Normalized()
	problems := f.Problems()
	stage, ok := p.First(), true
	if stageID != "" {
		if stage, ok = p.StageByID(stageID); !ok {
			problems = append(problems, Problem{Field: "stageId", Detail: "is not a stage of the pipeline"})
		}
	}
	if err := Invalid(problems); err != nil {
		return Change{}, err
	}
	c := Contact{ContactID: id, Fields: f, PipelineID: p.PipelineID, StageID: stage.StageID, StageEnteredAt: now,
		Revision: 1, CreatedAt: now, UpdatedAt: now}
	return Change{Contact: c, Move: &Move{PipelineID: p.PipelineID, To: stage.StageID, At: now, Source: SourceCreate}}, nil
}

// Update replaces the contact's fields (PUT: what the body leaves out is
// emptied). changed is false when nothing differs: no event then.
func (c Contact) Update(f Fields, now time.Time) (change Change, changed bool, err error) {
	if !c.Live() {
		return Change{}, false, errs.NotFound("contact")
	}
	f = f.Normalized()
	if err := Invalid(f.Problems()); err != nil {
		return Change{}, false, err
	}
	if c.Fields.Equal(f) {
		return Change{Contact: c}, false, nil
	}
	next := c
	next.Fields, next.Revision, next.UpdatedAt = f, c.Revision+1, now
	return Change{Contact: next}, true, nil
}

// Delete soft-deletes the contact: it is gone from every read and match,
// and never blocks a later contact with the same email.
func (c Contact) Delete(now time.Time) (Change, error) {
	if !c.Live() {
		return Change{}, errs.NotFound("contact")
	}
	next := c
	next.Deleted, next.DeletedAt, next.Revision, next.UpdatedAt = true, &now, c.Revision+1, now
	return Change{Contact: next}, nil
}

// MoveTo puts the contact in a stage of the pipeline; moved is false when
// it is there already (nothing to record).
func (c Contact) MoveTo(p Pipeline, stageID string, now time.Time) (change Change, moved bool, err error) {
	if !c.Live() {
		return Change{}, false, errs.NotFound("contact")
	}
	if p.PipelineID != c.PipelineID {
		return Change{}, false, errs.InvalidField("/pipelineId", "is not the contact's pipeline")
	}
	stage, ok := p.StageByID(stageID)
	if !ok {
		return Change{}, false, errs.InvalidField("/stageId", "is not a stage of the pipeline")
	}
	if stage.StageID == c.StageID {
		return Change{Contact: c}, false, nil
	}
	next := c
	next.StageID, next.StageEnteredAt, next.Revision, next.UpdatedAt = stage.StageID, now, c.Revision+1, now
	return Change{Contact: next, Move: &Move{PipelineID: p.PipelineID, From: c.StageID, To: stage.StageID, At: now, Source: SourceMove}}, true, nil
}

// withTags is a copy whose tags slice is its own (changes built from a
// contact never share backing arrays with it).
func (c Contact) withTags() Contact {
	c.Tags = slices.Clone(c.Tags)
	if c.Tags == nil {
		c.Tags = []string{}
	}
	return c
}
