package contacts

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
)

func ids() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("new-%03d", n) }
}

func existing(id string, f Fields, stage string, rev int) Contact {
	return Contact{ContactID: id, Fields: f.Normalized(), PipelineID: DefaultPipeline("org").PipelineID, StageID: stage,
		Revision: rev, CreatedAt: now, UpdatedAt: now, StageEnteredAt: now}
}

func TestPlan(t *testing.T) {
	p := DefaultPipeline("org")
	ann := existing("c-ann", Fields{FirstName: "Ann", Email: "ann@example.com", Phone: "1"}, "lead", 3)
	bob := existing("c-bob", Fields{FirstName: "Bob", LastName: "Lee", Company: "ACME"}, "lead", 1)
	annTwin := existing("c-zz", Fields{FirstName: "Other", Email: "ANN@example.com"}, "lead", 1) // newer id: not the match
	row := func(line int, f Fields, stage string) Row {
		return Row{Line: line, Fields: f.Normalized(), Stage: stage}
	}
	cases := []struct {
		name     string
		rows     []Row
		mode     string
		outcomes string // line:action:contact
		check    func(t *testing.T, plan BatchPlan)
	}{
		{"email matches case-insensitively; empty cells keep values", []Row{row(2, Fields{Email: "Ann@Example.com", LastName: "Lee"}, "")},
			OnMatchUpdate, "2:update:c-ann", func(t *testing.T, plan BatchPlan) {
				u := plan.Updated[0]
				if u.Contact.LastName != "Lee" || u.Contact.Phone != "1" || u.Contact.Revision != 4 || u.Prior == nil || u.Prior.Revision != 3 || u.Prior.LastName != "" {
					t.Fatalf("update %+v prior %+v", u.Contact, u.Prior)
				}
			}},
		{"a row without email matches by name and company", []Row{row(2, Fields{FirstName: "bob", LastName: "lee", Company: "acme", JobTitle: "CTO"}, "")},
			OnMatchUpdate, "2:update:c-bob", nil},
		{"name without the same company does not match", []Row{row(2, Fields{FirstName: "Bob", LastName: "Lee", Company: "Initech"}, "")},
			OnMatchUpdate, "2:create:new-001", nil},
		{"the same values are unchanged", []Row{row(2, Fields{Email: "ann@example.com", FirstName: "Ann"}, "lead")},
			OnMatchUpdate, "2:unchanged:c-ann", func(t *testing.T, plan BatchPlan) {
				if plan.Unchanged != 1 || len(plan.Updated)+len(plan.Created) != 0 {
					t.Fatalf("%+v", plan)
				}
			}},
		{"skip leaves matches alone", []Row{row(2, Fields{Email: "ann@example.com", FirstName: "Changed"}, ""), row(3, Fields{Email: "new@example.com"}, "")},
			OnMatchSkip, "2:skip:c-ann 3:create:new-001", func(t *testing.T, plan BatchPlan) {
				if plan.Skipped != 1 || len(plan.Created) != 1 {
					t.Fatalf("%+v", plan)
				}
			}},
		{"create makes duplicates on purpose", []Row{row(2, Fields{Email: "ann@example.com"}, ""), row(3, Fields{Email: "ann@example.com"}, "")},
			OnMatchCreate, "2:create:new-001 3:create:new-002", nil},
		{"a file naming one person twice makes one contact", []Row{row(2, Fields{Email: "x@example.com", FirstName: "X"}, ""), row(3, Fields{Email: "X@example.com", Phone: "9"}, "")},
			OnMatchUpdate, "2:create:new-001 3:create:new-001", func(t *testing.T, plan BatchPlan) {
				if len(plan.Created) != 1 || plan.Created[0].Contact.Phone != "9" || plan.Created[0].Contact.Revision != 1 {
					t.Fatalf("%+v", plan.Created)
				}
			}},
		{"two rows updating one contact make one revision", []Row{row(2, Fields{Email: "ann@example.com", LastName: "Lee"}, ""), row(3, Fields{Email: "ann@example.com", JobTitle: "CEO"}, "")},
			OnMatchUpdate, "2:update:c-ann 3:update:c-ann", func(t *testing.T, plan BatchPlan) {
				u := plan.Updated[0]
				if len(plan.Updated) != 1 || u.Contact.Revision != 4 || u.Contact.LastName != "Lee" || u.Contact.JobTitle != "CEO" || u.Prior.Revision != 3 {
					t.Fatalf("%+v", plan.Updated)
				}
			}},
		{"a stage cell moves the contact, recorded", []Row{row(2, Fields{Email: "ann@example.com"}, "won")},
			OnMatchUpdate, "2:update:c-ann", func(t *testing.T, plan BatchPlan) {
				m := plan.Updated[0].Move
				if m == nil || m.From != "lead" || m.To != "won" || m.Source != SourceImport || plan.Updated[0].Contact.StageID != "won" {
					t.Fatalf("%+v", plan.Updated[0])
				}
			}},
		{"a new contact enters its stage", []Row{row(2, Fields{Email: "n@example.com"}, "qualified")},
			OnMatchUpdate, "2:create:new-001", func(t *testing.T, plan BatchPlan) {
				m := plan.Created[0].Move
				if m == nil || m.From != "" || m.To != "qualified" || plan.Created[0].Contact.StageID != "qualified" {
					t.Fatalf("%+v", plan.Created[0])
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := Plan(c.rows, []Contact{annTwin, ann, bob}, c.mode, p, ids(), now)
			var got []string
			for _, o := range plan.Outcomes {
				got = append(got, fmt.Sprintf("%d:%s:%s", o.Line, o.Action, o.ContactID))
			}
			if strings.Join(got, " ") != c.outcomes {
				t.Fatalf("outcomes %q, want %q", strings.Join(got, " "), c.outcomes)
			}
			if c.check != nil {
				c.check(t, plan)
			}
		})
	}
}

func TestPlanNeverMatchesDeletedContacts(t *testing.T) {
	gone := existing("c-gone", Fields{Email: "ann@example.com"}, "lead", 2)
	gone.Deleted = true
	plan := Plan([]Row{{Line: 2, Fields: Fields{Email: "ann@example.com"}.Normalized()}}, []Contact{gone}, OnMatchUpdate, DefaultPipeline("org"), ids(), now)
	if len(plan.Created) != 1 {
		t.Fatalf("a soft-deleted contact blocked the row: %+v", plan)
	}
}

func TestMappingAndRows(t *testing.T) {
	p := DefaultPipeline("org")
	auto, err := NewMapping([]string{"E-mail", "First Name", "Surname", "Company", "Labels", "Stage", "Notes"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cols := auto.Columns(); cols["email"] != "E-mail" || cols["firstName"] != "First Name" || cols["lastName"] != "Surname" || cols["tags"] != "Labels" {
		t.Fatalf("columns %v", cols)
	}
	if ign := auto.Ignored(); len(ign) != 1 || ign[0] != "Notes" {
		t.Fatalf("ignored %v", ign)
	}
	cases := []struct {
		name   string
		record []string
		errs   string // column:field of each error
		check  func(Row) bool
	}{
		{"a good row", []string{" ann@example.com", "Ann", "Lee", "ACME", "vip; lead,vip", "Qualified", "x"}, "",
			func(r Row) bool {
				return r.Fields.Email == "ann@example.com" && strings.Join(r.Fields.Tags, "|") == "vip|lead" && r.Stage == "qualified"
			}},
		{"bad email and stage", []string{"nope", "Ann", "", "", "", "Nowhere", ""}, "1:email 6:stage", nil},
		{"nothing to call it by", []string{"", "", "", "", "vip", "", ""}, "0:", nil},
		{"wrong width", []string{"a", "b"}, "0:", nil},
		{"control characters", []string{"", "A\x00nn", "", "", "", "", ""}, "2:firstName", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			row, rowErrs := auto.Row(7, c.record, p)
			var got []string
			for _, e := range rowErrs {
				if e.Line != 7 {
					t.Fatalf("line %d", e.Line)
				}
				got = append(got, fmt.Sprintf("%d:%s", e.Column, e.Field))
			}
			if strings.Join(got, " ") != c.errs {
				t.Fatalf("errors %q, want %q (%+v)", got, c.errs, rowErrs)
			}
			if c.check != nil && !c.check(row) {
				t.Fatalf("row %+v", row)
			}
		})
	}
	explicit, err := NewMapping([]string{"Mail", "Who"}, map[string]string{"email": "Mail", "firstName": "Who"})
	if err != nil || explicit.Columns()["firstName"] != "Who" {
		t.Fatalf("explicit %v %v", explicit.Columns(), err)
	}
	_, err = NewMapping([]string{"Mail"}, map[string]string{"email": "Address"})
	if e, ok := errs.As(err); !ok || e.Fields[0].Pointer != "/map.email" {
		t.Fatalf("a mapped column the file lacks: %v", err)
	}
	if _, err := NewMapping([]string{"foo", "bar"}, nil); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("a header with no field: %v", err)
	}
}

func TestImportLifecycle(t *testing.T) {
	req := ImportRequest{OnMatch: OnMatchUpdate, Columns: map[string]string{"email": "Email"}, FileSHA256: "abc", Rows: 3}
	var s ImportState
	started, err := s.Start("imp", req, now)
	if err != nil || len(started) != 1 {
		t.Fatal(started, err)
	}
	s = applied(t, s, started...)
	if again, err := s.Start("imp", req, now); err != nil || again != nil {
		t.Fatalf("the same request again starts nothing: %v %v", again, err)
	}
	other := req
	other.FileSHA256 = "def"
	if _, err := s.Start("imp", other, now); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("another file under the same id: %v", err)
	}
	plan := BatchPlan{Created: []Change{{Contact: existing("c1", Fields{Email: "a@b.c"}, "lead", 1)}}, Unchanged: 2}
	batch, err := s.Commit(plan, 2, 4)
	if err != nil || len(batch) != 1 {
		t.Fatal(batch, err)
	}
	s = applied(t, s, batch...)
	if s.Created != 1 || s.Unchanged != 2 || s.CommittedLine != 4 || s.Batches != 1 {
		t.Fatalf("%+v", s)
	}
	if again, err := s.Commit(plan, 2, 4); err != nil || again != nil {
		t.Fatalf("committed lines again: %v %v", again, err)
	}
	done, _ := s.Complete(now)
	s = applied(t, s, done...)
	if s.State != StateCompleted {
		t.Fatal(s.State)
	}
	if _, err := s.Commit(plan, 5, 6); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("a completed import takes no batch: %v", err)
	}
	undo, _ := s.UndoBatch(1, 500, UndoPlan{Removed: []Removed{{ContactID: "c1", Revision: 1}}})
	s = applied(t, s, undo...)
	if again, _ := s.UndoBatch(1, 500, UndoPlan{}); again != nil {
		t.Fatal("an undo batch twice")
	}
	fin, _ := s.FinishUndo(now)
	s = applied(t, s, fin...)
	if s.State != StateUndone || s.Removed != 1 || s.UndoBatchSize != 500 {
		t.Fatalf("%+v", s)
	}
}

func TestUndo(t *testing.T) {
	p := DefaultPipeline("org")
	prior := existing("c-upd", Fields{FirstName: "Ann", Email: "ann@example.com"}, "lead", 3)
	afterImport := prior
	afterImport.FirstName, afterImport.StageID, afterImport.Revision = "Anne", "won", 4
	batches := []ImportBatchV1{
		{Batch: 1, Created: []ImportedContact{{ContactID: "c-new", Email: "n@example.com", StageID: "lead"}},
			Updated: []Change{{Contact: afterImport, Prior: &prior}}},
		{Batch: 2, Updated: []Change{{Contact: func() Contact { c := afterImport; c.Revision = 5; return c }(), Prior: &afterImport}},
			Created: []ImportedContact{{ContactID: "c-edited", Email: "e@example.com", StageID: "lead"}}},
	}
	touched := FoldBatches(batches)
	if len(touched) != 3 || touched[2].ContactID != "c-upd" || touched[2].Prior.Revision != 3 || touched[2].Revision != 5 {
		t.Fatalf("touched %+v", touched)
	}
	current := map[string]Contact{
		"c-new":    existing("c-new", Fields{Email: "n@example.com"}, "lead", 1),
		"c-edited": existing("c-edited", Fields{Email: "e@example.com"}, "lead", 2), // edited after the import
		"c-upd":    func() Contact { c := afterImport; c.Revision = 5; return c }(),
	}
	plan := PlanUndo(touched, current, p, now.Add(time.Hour))
	if len(plan.Removed) != 1 || plan.Removed[0].ContactID != "c-new" {
		t.Fatalf("removed %+v", plan.Removed)
	}
	if len(plan.Conflicts) != 1 || plan.Conflicts[0] != "c-edited" {
		t.Fatalf("conflicts %+v", plan.Conflicts)
	}
	r := plan.Restored[0]
	if r.Contact.FirstName != "Ann" || r.Contact.StageID != "lead" || r.Contact.Revision != 6 || r.Move == nil || r.Move.From != "won" || r.Move.Source != SourceUndo {
		t.Fatalf("restored %+v move %+v", r.Contact, r.Move)
	}
}

func applied(t *testing.T, s ImportState, changes ...eventChange) ImportState {
	t.Helper()
	for _, c := range changes {
		if err := s.applyChange(c); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestMergeKeepsTheEmailSpelling(t *testing.T) {
	got := Fields{Email: "Ann@Example.com", FirstName: "Ann"}.Merge(Fields{Email: "ann@example.com", LastName: "Lee"})
	if got.Email != "Ann@Example.com" || got.LastName != "Lee" {
		t.Fatalf("%+v", got)
	}
}

// TestBatchCarriesCreatedContactsWhole: the lean form of a created contact
// expands to exactly the contact the plan made.
func TestBatchCarriesCreatedContactsWhole(t *testing.T) {
	p := DefaultPipeline("org")
	plan := Plan([]Row{{Line: 2, Fields: Fields{FirstName: "Ann", Email: "a@b.c", Tags: []string{"vip"}}.Normalized(), Stage: "won"},
		{Line: 3, Fields: Fields{Company: "ACME"}.Normalized()}}, nil, OnMatchUpdate, p, ids(), now)
	s := ImportState{ImportID: "imp", State: StateCommitting}
	changes, err := s.Commit(plan, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	b := changes[0].Payload.(ImportBatchV1)
	got := b.CreatedChanges()
	for i := range plan.Created {
		if fmt.Sprintf("%+v %+v", got[i].Contact, *got[i].Move) != fmt.Sprintf("%+v %+v", plan.Created[i].Contact, *plan.Created[i].Move) {
			t.Fatalf("expanded %+v\n planned %+v", got[i], plan.Created[i])
		}
	}
}
