package module_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kernels are the packages of this repository the module kernel may use:
// the shared mechanisms every context builds on, never a context's own
// package (its domain, commands, read models, mapping or service).
var kernels = []string{"commands/jobs", "commands/reactor", "commands/timers", "domain/event", "domain/jobs", "eventstore", "http", "notifications",
	"projections", "internal/keyring", "internal/leader", "internal/objectstore", "internal/outbound"}

// TestModuleKernelImportsNoContext: internal/module declares what a context
// is; the contexts import it, not the other way round (it had imported the
// audit history's read model to merge redactions that only ops reads).
func TestModuleKernelImportsNoContext(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const repo = "github.com/platform/backend/"
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		checked++
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(path, repo); ok && !slices.Contains(kernels, rest) {
				t.Errorf("%s imports %s: internal/module may use only %v", f, path, kernels)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no file of internal/module found")
	}
}
