package contacts

import (
	"sort"
	"time"
)

// What an import does with a row that matches a live contact.
const (
	OnMatchUpdate = "update" // fill the contact from the row's non-empty cells
	OnMatchSkip   = "skip"   // leave the contact as it is
	OnMatchCreate = "create" // create another contact anyway
)

// OnMatchModes are the modes, the default first.
var OnMatchModes = []string{OnMatchUpdate, OnMatchSkip, OnMatchCreate}

// What the plan did with a row.
const (
	RowCreated   = "create"
	RowUpdated   = "update"
	RowUnchanged = "unchanged"
	RowSkipped   = "skip"
)

// RowOutcome is what a plan does with one row (a dry run lists them).
type RowOutcome struct {
	Line      int    `json:"line"`
	Action    string `json:"action"`
	ContactID string `json:"contact_id"`
	// MatchedBy is the key that found an existing contact: email or name.
	MatchedBy string `json:"matched_by,omitempty"`
}

// BatchPlan is what one batch of rows does: the contacts it creates and
// updates (each once, with its state before the batch), and the rest.
type BatchPlan struct {
	At         time.Time
	PipelineID string
	Created    []Change
	Updated    []Change
	Unchanged  int
	Skipped    int
	Outcomes   []RowOutcome
}

// planned is one contact the batch creates or matches.
type planned struct {
	contact Contact
	prior   *Contact // before the batch; nil for a contact the batch creates
	stage   string   // the stage before the batch
	created bool
	touched bool
	order   int
}

// Plan decides a batch of valid rows, in file order, against the live
// contacts their keys match (existing, as the write side holds them, locked
// by the command). A row matches by its normalized email, or without one by
// its normalized name and company; where several contacts share a key the
// oldest (lowest id) is the match. Rows match contacts the batch itself
// created or updated before them, so a file that names one person twice
// makes one contact. Each contact changes once per batch (one revision).
func Plan(rows []Row, existing []Contact, mode string, p Pipeline, newID func() string, now time.Time) BatchPlan {
	byKey := map[string]*planned{}
	index := func(e *planned) {
		email, name := e.contact.Keys()
		for _, k := range []string{"email:" + email, "name:" + name} {
			if k != "email:" && k != "name:" {
				if cur, ok := byKey[k]; !ok || cur.contact.ContactID > e.contact.ContactID {
					byKey[k] = e
				}
			}
		}
	}
	unindex := func(e *planned) {
		email, name := e.contact.Keys()
		for _, k := range []string{"email:" + email, "name:" + name} {
			if byKey[k] == e {
				delete(byKey, k)
			}
		}
	}
	sorted := append([]Contact(nil), existing...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ContactID < sorted[j].ContactID })
	for _, c := range sorted {
		if c.Live() {
			index(&planned{contact: c.withTags(), stage: c.StageID})
		}
	}
	var order []*planned
	plan := BatchPlan{At: now, PipelineID: p.PipelineID}
	for _, row := range rows {
		kind, key := row.Fields.Key()
		var match *planned
		if mode != OnMatchCreate && key != "" {
			match = byKey[kind+":"+key]
		}
		switch {
		case match == nil:
			stage := p.First().StageID
			if row.Stage != "" {
				stage = row.Stage
			}
			c := Contact{ContactID: newID(), Fields: row.Fields.Normalized(), PipelineID: p.PipelineID, StageID: stage,
				StageEnteredAt: now, Revision: 1, CreatedAt: now, UpdatedAt: now}
			e := &planned{contact: c, created: true, touched: true, order: len(order)}
			order = append(order, e)
			if mode != OnMatchCreate {
				index(e)
			}
			plan.Outcomes = append(plan.Outcomes, RowOutcome{Line: row.Line, Action: RowCreated, ContactID: c.ContactID})
		case mode == OnMatchSkip:
			plan.Skipped++
			plan.Outcomes = append(plan.Outcomes, RowOutcome{Line: row.Line, Action: RowSkipped, ContactID: match.contact.ContactID, MatchedBy: kind})
		default:
			action := match.update(row)
			if action == RowUpdated && !match.touched {
				prior := match.contact.withTags()
				match.prior, match.touched, match.order = &prior, true, len(order)
				order = append(order, match)
			}
			if action == RowUnchanged && !match.created {
				plan.Unchanged++
			}
			if action == RowUpdated {
				unindex(match)
				match.apply(row, now)
				index(match)
			}
			if match.created {
				action = RowCreated // a second row about a contact this batch creates
			}
			plan.Outcomes = append(plan.Outcomes, RowOutcome{Line: row.Line, Action: action, ContactID: match.contact.ContactID, MatchedBy: kind})
		}
	}
	for _, e := range order {
		ch := Change{Contact: e.contact}
		switch {
		case e.created:
			ch.Move = &Move{PipelineID: p.PipelineID, To: e.contact.StageID, At: now, Source: SourceImport}
			plan.Created = append(plan.Created, ch)
		default:
			if e.contact.StageID != e.stage {
				ch.Move = &Move{PipelineID: p.PipelineID, From: e.stage, To: e.contact.StageID, At: now, Source: SourceImport}
			}
			ch.Prior = e.prior
			plan.Updated = append(plan.Updated, ch)
		}
	}
	return plan
}

// update says what a row would do to the contact: update or unchanged.
func (e *planned) update(row Row) string {
	merged := e.contact.Fields.Merge(row.Fields).Normalized()
	if merged.Equal(e.contact.Fields) && (row.Stage == "" || row.Stage == e.contact.StageID) {
		return RowUnchanged
	}
	return RowUpdated
}

// apply updates the contact from the row (one revision per batch).
func (e *planned) apply(row Row, now time.Time) {
	next := e.contact
	next.Fields = next.Fields.Merge(row.Fields).Normalized()
	if row.Stage != "" && row.Stage != next.StageID {
		next.StageID, next.StageEnteredAt = row.Stage, now
	}
	if !e.created && next.Revision == e.prior.Revision {
		next.Revision++
	}
	next.UpdatedAt = now
	e.contact = next
}
