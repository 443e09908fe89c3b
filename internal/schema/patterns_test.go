package schema

import (
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compilePattern(t *testing.T, url, pattern string) jsonschema.Regexp {
	t.Helper()
	c := NewCompiler()
	if err := c.AddResource(url, map[string]any{"type": "string", "pattern": pattern}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	if s.Pattern == nil {
		t.Fatal("no pattern compiled")
	}
	return s.Pattern
}

// TestCompilersSharePatterns: two compilers given the same pattern hold one
// compiled regexp, which still matches as its source says.
func TestCompilersSharePatterns(t *testing.T) {
	a := compilePattern(t, "test:a.json", `^[a-z]+-shared$`)
	b := compilePattern(t, "test:b.json", `^[a-z]+-shared$`)
	if a != b {
		t.Errorf("two copies of one pattern: %p, %p", a, b)
	}
	if !a.MatchString("abc-shared") || a.MatchString("ABC-shared") {
		t.Errorf("the shared pattern matches wrongly")
	}
	if other := compilePattern(t, "test:c.json", `^[a-z]+-other$`); other == a {
		t.Error("two patterns share one regexp")
	}
}

// TestSharedPatternsAreBounded: more distinct patterns than the bound (input
// strings of format "regex" go through the same engine) still compile, and
// the cache stops growing at the bound; a bad pattern is an error, not kept.
func TestSharedPatternsAreBounded(t *testing.T) {
	for i := range maxPatterns + 10 {
		re, err := sharedRegexp(fmt.Sprintf("^bound-%d$", i))
		if err != nil || !re.MatchString(fmt.Sprintf("bound-%d", i)) {
			t.Fatalf("pattern %d: %v", i, err)
		}
	}
	patterns.Lock()
	n := len(patterns.m)
	patterns.Unlock()
	if n > maxPatterns {
		t.Errorf("%d patterns kept, bound %d", n, maxPatterns)
	}
	if re, err := sharedRegexp(`^(unclosed`); err == nil || re != nil {
		t.Errorf("a bad pattern: %v, %v", re, err)
	}
}
