package schema

import (
	"regexp"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// patterns are the compiled regular expressions of the schemas this process
// compiles, by source. The kernel's patterns (a line of text, an id, a URL)
// recur in hundreds of action schemas, and each schema compiled its own copy:
// ~4 MB held live by a platform (marked by every collection) and compiled
// again at every start. A *regexp.Regexp is safe for concurrent use.
// Bounded (maxPatterns), because the same engine checks input strings of
// format "regex", which must not grow it.
var patterns = struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}

const maxPatterns = 4096

// sharedRegexp is the compilers' regexp engine: the standard library's
// (as jsonschema's default), a pattern compiled once.
func sharedRegexp(s string) (jsonschema.Regexp, error) {
	patterns.Lock()
	re, ok := patterns.m[s]
	patterns.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, err
	}
	patterns.Lock()
	if len(patterns.m) < maxPatterns {
		patterns.m[s] = re
	}
	patterns.Unlock()
	return re, nil
}
