package contacts

import (
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
)

var now = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

func TestFieldsProblems(t *testing.T) {
	cases := []struct {
		name   string
		fields Fields
		want   []string // fields with a problem ("" the contact as a whole)
	}{
		{"a name is enough", Fields{FirstName: "Ann"}, nil},
		{"an email is enough", Fields{Email: "ann@example.com"}, nil},
		{"a company is enough", Fields{Company: "ACME Corp"}, nil},
		{"nothing to call it by", Fields{Phone: "+1 555"}, []string{""}},
		{"not an address", Fields{Email: "ann at example"}, []string{"email"}},
		{"a display name is not an address", Fields{Email: "Ann <ann@example.com>"}, []string{"email"}},
		{"control character", Fields{FirstName: "A\x00nn"}, []string{"firstName"}},
		{"too long", Fields{LastName: strings.Repeat("x", 201)}, []string{"lastName"}},
		{"too many tags", Fields{FirstName: "Ann", Tags: make([]string, MaxTags+1)}, []string{"tags"}},
		{"tag too long", Fields{FirstName: "Ann", Tags: []string{strings.Repeat("t", 65)}}, []string{"tags"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			f := c.fields
			if c.name != "too many tags" { // Normalized drops empty tags
				f = f.Normalized()
			}
			for _, p := range f.Problems() {
				got = append(got, p.Field)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("problems at %q, want %q", got, c.want)
			}
		})
	}
}

func TestNormalizedTrimsAndDedupesTags(t *testing.T) {
	f := Fields{FirstName: "  Ann ", Tags: []string{" VIP", "vip", "", "lead "}}.Normalized()
	if f.FirstName != "Ann" || strings.Join(f.Tags, "|") != "VIP|lead" {
		t.Fatalf("%+v", f)
	}
	if (Fields{}).Normalized().Tags == nil {
		t.Fatal("tags must never be nil")
	}
}

func TestContactDecisions(t *testing.T) {
	p := DefaultPipeline("org")
	created, err := NewContact("c1", Fields{FirstName: "Ann", Email: "ann@example.com"}, p, "", now)
	if err != nil {
		t.Fatal(err)
	}
	live := created.Contact
	if live.Revision != 1 || live.StageID != "lead" || created.Move == nil || created.Move.From != "" || created.Move.To != "lead" {
		t.Fatalf("created %+v move %+v", live, created.Move)
	}
	deleted, err := live.Delete(now)
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Hour)
	cases := []struct {
		name    string
		do      func() (Change, bool, error)
		kind    errs.Kind
		changed bool
		check   func(Change) bool
	}{
		{"update changes the fields at the next revision", func() (Change, bool, error) {
			return live.Update(Fields{FirstName: "Anne", Email: "ann@example.com"}, later)
		}, 0, true, func(c Change) bool {
			return c.Contact.FirstName == "Anne" && c.Contact.Revision == 2 && c.Contact.UpdatedAt.Equal(later)
		}},
		{"an update that changes nothing is no change", func() (Change, bool, error) {
			return live.Update(Fields{FirstName: " Ann", Email: "ann@example.com "}, later)
		}, 0, false, func(c Change) bool { return c.Contact.Revision == 1 }},
		{"PUT replaces: what is left out is emptied", func() (Change, bool, error) {
			return live.Update(Fields{FirstName: "Ann"}, later)
		}, 0, true, func(c Change) bool { return c.Contact.Email == "" }},
		{"invalid update", func() (Change, bool, error) { return live.Update(Fields{Email: "nope"}, later) }, errs.KindInvalidInput, false, nil},
		{"a deleted contact is not found", func() (Change, bool, error) {
			return deleted.Contact.Update(Fields{FirstName: "Ann"}, later)
		}, errs.KindNotFound, false, nil},
		{"move records from and to", func() (Change, bool, error) { return live.MoveTo(p, "qualified", later) }, 0, true,
			func(c Change) bool {
				return c.Move.From == "lead" && c.Move.To == "qualified" && c.Contact.StageEnteredAt.Equal(later) && c.Contact.Revision == 2
			}},
		{"a move to the stage it is in records nothing", func() (Change, bool, error) { return live.MoveTo(p, "lead", later) }, 0, false, nil},
		{"an unknown stage is invalid input", func() (Change, bool, error) { return live.MoveTo(p, "nowhere", later) }, errs.KindInvalidInput, false, nil},
		{"another pipeline is invalid input", func() (Change, bool, error) { return live.MoveTo(DefaultPipeline("other"), "won", later) }, errs.KindInvalidInput, false, nil},
		{"a deleted contact does not move", func() (Change, bool, error) { return deleted.Contact.MoveTo(p, "won", later) }, errs.KindNotFound, false, nil},
		{"delete twice is not found", func() (Change, bool, error) { c, err := deleted.Contact.Delete(later); return c, err == nil, err }, errs.KindNotFound, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, changed, err := c.do()
			if c.kind != 0 {
				if errs.KindOf(err) != c.kind {
					t.Fatalf("error %v, want kind %v", err, c.kind)
				}
				return
			}
			if err != nil || changed != c.changed || (c.check != nil && !c.check(ch)) {
				t.Fatalf("change %+v changed %v err %v", ch, changed, err)
			}
		})
	}
	if !deleted.Contact.Deleted || deleted.Contact.DeletedAt == nil || deleted.Contact.Revision != 2 || deleted.Contact.Live() {
		t.Fatalf("deleted %+v", deleted.Contact)
	}
}

func TestKeys(t *testing.T) {
	cases := []struct {
		fields     Fields
		kind, want string
	}{
		{Fields{Email: " Joanna@Example.COM ", FirstName: "Jo"}, "email", "joanna@example.com"},
		{Fields{FirstName: "Ann ", LastName: " Lee", Company: "ACME  Corp"}, "name", "ann lee|acme corp"},
		{Fields{FirstName: "ann", LastName: "lee"}, "name", "ann lee|"},
		{Fields{Company: "ACME"}, "name", ""},
	}
	for _, c := range cases {
		kind, got := c.fields.Key()
		if kind != c.kind || got != c.want {
			t.Errorf("%+v: key %s %q, want %s %q", c.fields, kind, got, c.kind, c.want)
		}
	}
}

func TestDefaultPipelineIsPerOrganization(t *testing.T) {
	a, b := DefaultPipeline("org-a"), DefaultPipeline("org-b")
	if a.PipelineID == b.PipelineID || a.PipelineID != DefaultPipeline("org-a").PipelineID {
		t.Fatal("pipeline ids must be stable per organization and differ between them")
	}
	if st, ok := a.StageNamed("QUALIFIED"); !ok || st.StageID != "qualified" || st.Position != 3 {
		t.Fatalf("stage by name: %+v %v", st, ok)
	}
}

func TestNeutralizeCell(t *testing.T) {
	for in, want := range map[string]string{"=SUM(A1)": "'=SUM(A1)", "+1 555": "'+1 555", "-2": "'-2", "@cmd": "'@cmd",
		"\tx": "'\tx", "Ann": "Ann", "": "", "a=b": "a=b", "'+1": "''+1", "''x": "'''x", "'Tis": "'Tis", "'": "'", "'-": "''-"} {
		if got := NeutralizeCell(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
