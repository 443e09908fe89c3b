package workspace

import (
	"slices"
	"testing"

	"github.com/platform/backend/domain/errs"
)

// TestGuardAnswers: the answers a guard gives from what it read, one
// sentence per kind with no id (clients and the fuzzing gate's rules match
// them): 404 for the workspace, the project, the object; 422 at each
// pointer whose object is not a live one of its kind (and project), with
// the refusals made outside the transaction, in pointer order.
func TestGuardAnswers(t *testing.T) {
	r := &Registry{Context: "test", Names: map[string]string{"asset": "asset", "composition": "composition version"}}
	read := func(g *Guard, live map[string]entry) *Guard {
		g.Registry, g.live = r, live
		return g
	}
	live := map[string]entry{"p1": {kind: "project"}, "a1": {kind: "asset"}, "c1": {kind: "composition", project: "p1"},
		"c2": {kind: "composition", project: "p2"}}

	for name, c := range map[string]struct {
		g    *Guard
		want string // the 404's detail
	}{
		"a deleted workspace":             {read(&Guard{Project: "p1", Object: "a1", wsDeleted: true}, live), "workspace not found"},
		"a project that is no project":    {read(&Guard{Project: "a1"}, live), "project not found"},
		"a missing project":               {read(&Guard{Project: "p9", Object: "a1"}, live), "project not found"},
		"a missing object":                {read(&Guard{Project: "p1", Object: "x"}, live), "composition version not found"},
		"an object of another kind lives": {read(&Guard{Object: "p1"}, live), ""},
	} {
		err := c.g.Check("composition version")
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if e, ok := errs.As(err); !ok || e.Kind != errs.KindNotFound || e.Message != c.want {
			t.Errorf("%s: %v, want %s", name, err, c.want)
		}
	}

	g := read(&Guard{Outside: []errs.Field{{Pointer: "/brandKitId", Detail: "no such brand kit"}}}, live)
	g.Ref("/z", "asset", "a1")               // live: no refusal
	g.Ref("/b", "asset", "p1")               // another kind
	g.RefIn("/c", "composition", "c2", "p1") // another project's
	g.RefIn("/d", "composition", "c1", "p1")
	g.Ref("/a", "composition", "missing")
	e, ok := errs.As(g.Refused())
	if !ok || e.Kind != errs.KindInvalidInput {
		t.Fatalf("refused: %v", g.Refused())
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Pointer+": "+f.Detail)
	}
	want := []string{"/a: no such composition version in this workspace", "/b: no such asset in this workspace",
		"/brandKitId: no such brand kit", "/c: no such composition version in this project"}
	if !slices.Equal(got, want) {
		t.Fatalf("refusals %q, want %q", got, want)
	}
	if err := read(&Guard{}, live).Refused(); err != nil {
		t.Fatalf("nothing named: %v", err)
	}
}

// TestRegisterColumns: a context's own columns join the registry row, ""
// stored as NULL like the common ones.
func TestRegisterColumns(t *testing.T) {
	w := (&Registry{Context: "design"}).Register("o", "w", "export", "e1", "p1", "o/design/exports/e1", Column{Name: "design_id", Value: "d1"})
	const want = `INSERT INTO design_objects (object_id, organization_id, workspace_id, kind, project_id, object_key, design_id) ` +
		`VALUES ($1, $2, $3, $4, nullif($5, ''), nullif($6, ''), nullif($7, '')) ON CONFLICT (object_id) DO NOTHING`
	if w.SQL != want || !slices.Equal(w.Args, []any{"e1", "o", "w", "export", "p1", "o/design/exports/e1", "d1"}) {
		t.Fatalf("%s %v", w.SQL, w.Args)
	}
}
