package publishing

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	domain "github.com/platform/backend/domain/publishing"
)

// TestFailuresUseTheRetryTable: every failure the publisher answers names a
// code of the domain's retry table (a domain.Failure* constant, never a
// literal the table does not know, which would show retryable false without
// anyone deciding it), and it answers jobs.Retryable exactly for the codes
// the table retries automatically.
func TestFailuresUseTheRetryTable(t *testing.T) {
	values := constants(t, filepath.Join("..", "..", "domain", "publishing", "retry.go"))
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn, ok := call.Fun.(*ast.SelectorExpr)
			if pkg, isIdent := fnPackage(fn); !ok || !isIdent || pkg != "jobs" || (fn.Sel.Name != "Fail" && fn.Sel.Name != "Retryable") {
				return true
			}
			calls++
			where := name + ": jobs." + fn.Sel.Name
			arg, ok := call.Args[0].(*ast.SelectorExpr)
			pkg, _ := fnPackage(arg)
			if !ok || pkg != "domain" {
				t.Errorf("%s: the code is not a domain.Failure* constant", where)
				return true
			}
			code, ok := values[arg.Sel.Name]
			if !ok {
				t.Errorf("%s(domain.%s): not a failure code of the retry table", where, arg.Sel.Name)
				return true
			}
			if automatic := fn.Sel.Name == "Retryable"; domain.Automatic(code) != automatic {
				t.Errorf("%s(%s): the retry table says automatic %v", where, code, domain.Automatic(code))
			}
			return true
		})
	}
	if calls == 0 {
		t.Fatal("no jobs.Fail or jobs.Retryable found")
	}
}

func fnPackage(s *ast.SelectorExpr) (string, bool) {
	if s == nil {
		return "", false
	}
	id, ok := s.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// constants maps the Failure* constants of a file to their values, those
// the retry table knows (domain.FailureCodes).
func constants(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, c := range domain.FailureCodes() {
		known[c] = true
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			if i >= len(spec.Values) {
				break
			}
			if lit, ok := spec.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasPrefix(name.Name, "Failure") {
				if v, _ := strconv.Unquote(lit.Value); known[v] {
					out[name.Name] = v
				}
			}
		}
		return true
	})
	return out
}
