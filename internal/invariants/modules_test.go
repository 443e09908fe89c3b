package invariants_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/internal/app"
)

// TestModulesDeclareTheirDomainsEventTypes: a module's EventTypes (what the
// handled-or-ignored invariant checks every projection and mapping against)
// are exactly the event type constants of its domain package
// (domain/<name>: "<name>.<stream>.<event>"), each once, and a module with
// jobs the kernel's job event types of the context (domain/jobs.EventTypes). A constant the list
// forgets would escape that invariant: every table could skip it unnoticed.
func TestModulesDeclareTheirDomainsEventTypes(t *testing.T) {
	checked := 0
	for _, m := range app.Modules() {
		if !m.Topic {
			continue
		}
		checked++
		eventType := regexp.MustCompile(`^` + regexp.QuoteMeta(m.Name) + `\.[a-z_]+\.[a-z_]+$`)
		seen := map[string]bool{}
		for _, typ := range m.EventTypes {
			if !eventType.MatchString(typ) {
				t.Errorf("module %s: %q is not an event type of the context (%s.<stream>.<event>)", m.Name, typ, m.Name)
			}
			if seen[typ] {
				t.Errorf("module %s: %q is listed twice", m.Name, typ)
			}
			seen[typ] = true
		}
		constants := stringConstants(t, filepath.Join("..", "..", "domain", m.Name), eventType)
		if m.Jobs != nil {
			// The job streams' types are the kernel's, per context.
			constants = append(constants, domjobs.EventTypes(m.Name)...)
		}
		if len(constants) == 0 {
			t.Errorf("module %s: domain/%s declares no event type constant", m.Name, m.Name)
		}
		for _, c := range constants {
			if !seen[c] {
				t.Errorf("module %s: domain/%s declares event type %q, which the module's EventTypes do not list", m.Name, m.Name, c)
			}
		}
		for typ := range seen {
			if !slices.Contains(constants, typ) {
				t.Errorf("module %s: EventTypes lists %q, which domain/%s does not declare", m.Name, typ, m.Name)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no module with a topic")
	}
}

// stringConstants are the string literals of dir's Go files (tests left
// out) assigned to a constant or variable, that match pattern. Timer kinds
// (TimerKind..., "status.maintenance.start") share the shape and are not
// event types.
func stringConstants(t *testing.T, dir string, pattern *regexp.Regexp) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok || timerKinds(spec) {
				return true
			}
			for _, v := range spec.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && pattern.MatchString(s) && !slices.Contains(out, s) {
						out = append(out, s)
					}
				}
			}
			return true
		})
	}
	return out
}

func timerKinds(spec *ast.ValueSpec) bool {
	for _, n := range spec.Names {
		if !strings.HasPrefix(n.Name, "TimerKind") {
			return false
		}
	}
	return len(spec.Names) > 0
}
