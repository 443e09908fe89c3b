package contacts

import (
	"sort"
	"time"
)

// Touched is what one import did to one contact, over all its batches:
// whether it created it, the state before its first update, and the
// revision its last change left.
type Touched struct {
	ContactID string
	Created   bool
	Prior     Contact
	Revision  int
}

// FoldBatches folds an import's batches, in order, into what it did to each
// contact, sorted by contact id (undo batches are cut from this order).
func FoldBatches(batches []ImportBatchV1) []Touched {
	by := map[string]*Touched{}
	for _, b := range batches {
		for _, c := range b.Created {
			by[c.ContactID] = &Touched{ContactID: c.ContactID, Created: true, Revision: 1}
		}
		for _, ch := range b.Updated {
			t, seen := by[ch.Contact.ContactID]
			if !seen {
				t = &Touched{ContactID: ch.Contact.ContactID}
				if ch.Prior != nil {
					t.Prior = *ch.Prior
				}
				by[ch.Contact.ContactID] = t
			}
			t.Revision = ch.Contact.Revision
		}
	}
	out := make([]Touched, 0, len(by))
	for _, t := range by {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ContactID < out[j].ContactID })
	return out
}

// UndoPlan is one undo batch: contacts removed (the import created them),
// restored (it updated them) and left alone (changed since: conflicts).
type UndoPlan struct {
	Removed   []Removed
	Restored  []Change
	Conflicts []string
}

// PlanUndo undoes what an import did to contacts, judged against their
// current state (current, by id, locked by the command). A contact whose
// revision is still the one the import left is removed, when the import
// created it, or restored to its state before the import: its fields, its
// stage (a move back, recorded) and its deleted flag, at a new revision. A
// contact changed since (edited, moved, deleted) is a conflict and keeps
// what it has: an undo never overwrites someone's later work.
func PlanUndo(touched []Touched, current map[string]Contact, p Pipeline, now time.Time) UndoPlan {
	var plan UndoPlan
	for _, t := range touched {
		cur, ok := current[t.ContactID]
		switch {
		case !ok:
			// gone already (an earlier, interrupted run of this undo)
		case cur.Revision != t.Revision:
			plan.Conflicts = append(plan.Conflicts, t.ContactID)
		case t.Created:
			plan.Removed = append(plan.Removed, Removed{ContactID: t.ContactID, Revision: cur.Revision})
		default:
			next := t.Prior.withTags()
			next.Revision, next.UpdatedAt = cur.Revision+1, now
			ch := Change{Contact: next}
			if next.StageID != cur.StageID {
				next.StageEnteredAt = now
				ch.Contact = next
				ch.Move = &Move{PipelineID: p.PipelineID, From: cur.StageID, To: next.StageID, At: now, Source: SourceUndo}
			}
			plan.Restored = append(plan.Restored, ch)
		}
	}
	return plan
}
