package brands

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

var now = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

// applier folds decided changes into m as the store records them.
func applier(t *testing.T, m *KitModel) func([]event.Change, error) {
	return func(changes []event.Change, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := kitFold.ApplyChanges(m, changes); err != nil {
			t.Fatal(err)
		}
	}
}

func pointers(err error) []string {
	e, ok := errs.As(err)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Pointer)
	}
	return out
}

// TestColoursAreCheckedAndNormalized: names unique ignoring case, hex
// #RRGGBB kept upper case, each problem at its member.
func TestColoursAreCheckedAndNormalized(t *testing.T) {
	m := &KitModel{}
	apply := applier(t, m)
	_, err := m.Create(NewKit{ID: "k", OrganizationID: "o", Name: "Acme", Colours: []Colour{{Name: "Primary", Hex: "#0a66c2"},
		{Name: "primary", Hex: "#FFFFFF"}, {Name: "Bad", Hex: "blue"}, {Name: " ", Hex: "#000000"}}}, now)
	got := pointers(err)
	want := []string{"/colours/1/name", "/colours/2/hex", "/colours/3/name"}
	if len(got) != len(want) {
		t.Fatalf("pointers %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pointers %v, want %v", got, want)
		}
	}
	apply(m.Create(NewKit{ID: "k", OrganizationID: "o", Name: " Acme ", Colours: []Colour{{Name: "Primary", Hex: "#0a66c2"}}}, now))
	if k := m.State(); k.Name != "Acme" || k.Draft.Colours[0].Hex != "#0A66C2" || !k.DraftChanged || k.Published() {
		t.Fatalf("created %+v", k)
	}
}

// TestPublishFreezesTheDraft: a version holds the draft as it was; later
// edits change the draft only; an unchanged draft has nothing to publish;
// a kit without a colour cannot be published.
func TestPublishFreezesTheDraft(t *testing.T) {
	m := &KitModel{}
	apply := applier(t, m)
	apply(m.Create(NewKit{ID: "k", OrganizationID: "o", Name: "Acme"}, now))
	if _, _, err := m.Publish("v0", nil, "u", now); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("a kit without a colour published: %v", err)
	}
	colours := []Colour{{Name: "Primary", Hex: "#0A66C2"}}
	apply(m.Update(KitChange{Colours: &colours}, now))
	apply(m.AddFont(Font{FontID: "f1", Family: "Dynalight", Weight: 400, Style: StyleNormal, Format: FormatOTF}, now))
	changes, v1, err := m.Publish("v1", nil, "u", now)
	apply(changes, err)
	if v1.Number != 1 || len(v1.Fonts) != 1 || *m.State().CurrentVersionID != "v1" || m.State().DraftChanged {
		t.Fatalf("version %+v, kit %+v", v1, m.State())
	}
	if _, _, err := m.Publish("v2", nil, "u", now); errs.CodeOf(err) != "nothing_to_publish" {
		t.Fatalf("an unchanged draft published: %v", err)
	}
	other := []Colour{{Name: "Accent", Hex: "#FF0000"}}
	apply(m.Update(KitChange{Colours: &other}, now))
	apply(m.RemoveFont("f1", now))
	if v1.Colours[0].Hex != "#0A66C2" || len(v1.Fonts) != 1 || !m.State().DraftChanged {
		t.Fatalf("the version changed with the draft: %+v", v1)
	}
	// The removed font is still a file of the kit (the version holds it).
	if _, ok := m.File("font", "f1"); !ok {
		t.Fatal("a version's font is no file of the kit")
	}
	if _, err := m.AddFont(Font{FontID: "f2", Family: "dynalight", Weight: 400, Style: StyleNormal}, now); err != nil {
		t.Fatal(err)
	}
	apply(m.AddFont(Font{FontID: "f2", Family: "Dynalight", Weight: 400, Style: StyleNormal}, now))
	if _, err := m.AddFont(Font{FontID: "f3", Family: "DYNALIGHT", Weight: 400, Style: StyleNormal}, now); errs.CodeOf(err) != "font_exists" {
		t.Fatalf("a second font of one family, weight and style: %v", err)
	}
	apply(m.Delete(now))
	if _, err := m.Update(KitChange{Colours: &colours}, now); errs.KindOf(err) != errs.KindNotFound {
		t.Fatalf("a deleted kit changed: %v", err)
	}
}

// TestWhoSeesAKit: a kit's own organization (a workspace's kit only through
// a credential that may enter it); the library's kits, once published, by
// everyone; nothing else.
func TestWhoSeesAKit(t *testing.T) {
	ws := "ws-a"
	lib := Library{OrganizationID: "lib"}
	member := principal.Principal{OrganizationID: "o"}
	boundB := principal.Principal{OrganizationID: "o", Workspaces: []principal.WorkspaceBinding{{WorkspaceID: "ws-b"}}}
	stranger := principal.Principal{OrganizationID: "x"}
	cases := []struct {
		name      string
		owner     Owner
		published bool
		p         principal.Principal
		want      bool
	}{
		{"own organization's kit", Owner{OrganizationID: "o"}, false, member, true},
		{"own workspace's kit", Owner{OrganizationID: "o", WorkspaceID: &ws}, false, member, true},
		{"another workspace's kit, bound elsewhere", Owner{OrganizationID: "o", WorkspaceID: &ws}, true, boundB, false},
		{"another organization's kit", Owner{OrganizationID: "o"}, true, stranger, false},
		{"library kit, published", Owner{OrganizationID: "lib"}, true, stranger, true},
		{"library kit, unpublished", Owner{OrganizationID: "lib"}, false, stranger, false},
		{"library organization's workspace kit (the library is its organization-wide kits)", Owner{OrganizationID: "lib", WorkspaceID: &ws}, true, stranger, false},
	}
	for _, c := range cases {
		if got := c.owner.Sees(c.p, c.published, lib); got != c.want {
			t.Errorf("%s: sees %v, want %v", c.name, got, c.want)
		}
	}
	wsLib := Library{OrganizationID: "lib", WorkspaceID: ws}
	if !(Owner{OrganizationID: "lib", WorkspaceID: &ws}).Sees(stranger, true, wsLib) || (Owner{OrganizationID: "lib"}).Sees(stranger, true, wsLib) {
		t.Error("a library with a workspace is that workspace's kits")
	}
}
