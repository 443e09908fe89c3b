package httpapi_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// kernelPackages are the only packages of this module the kernel may use:
// kernels themselves, never a context's domain, commands or read models.
var kernelPackages = []string{"domain/errs", "domain/event", "domain/principal", "domain/text", "commands", "eventstore",
	"projections", "internal/schema", "internal/jsonenc"}

// TestKernelImportsNoContext: the HTTP kernel (this package; each context's
// service is in http/<context>) compiles without any context, so a new
// service is its own files plus its module.
func TestKernelImportsNoContext(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/platform/backend/"
	kernel := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		kernel++
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(path, module); ok && !isKernelPackage(rest) {
				t.Errorf("%s imports %s: the kernel may use only %v", f, path, kernelPackages)
			}
		}
	}
	if kernel < 5 {
		t.Fatalf("only %d kernel files found", kernel)
	}
}

func isKernelPackage(rel string) bool {
	for _, k := range kernelPackages {
		if rel == k {
			return true
		}
	}
	return false
}
