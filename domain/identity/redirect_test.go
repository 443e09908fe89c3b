package identity_test

import (
	"testing"

	"github.com/platform/backend/domain/identity"
)

// TestUnderEntrypointRefusesPathTricks: a redirect URI is compared with its
// application's entrypoint as a string prefix, so anything a browser or a
// server would resolve to another path (dot segments, raw or percent-encoded
// in any case, encoded separators, backslashes, path parameters hiding a dot
// segment) must be refused before the comparison: each of these passed the
// prefix check and landed outside the entrypoint (black-box attack run).
func TestUnderEntrypointRefusesPathTricks(t *testing.T) {
	const ep = "http://127.0.0.1:3000/status"
	tests := []struct {
		uri  string
		want bool
	}{
		{ep, true},
		{ep + "/", true},
		{ep + "/cb", true},
		{ep + "/cb?next=../x", true}, // the query is not a path
		{ep + "/a.b/c..d/...", true}, // dots inside a name are names
		{ep + "/cb#frag", true},      // fragments are refused by the route, not here
		{ep + "/%7Euser/cb", true},   // an encoded unreserved character
		{ep + "x/cb", false},
		{ep + "/../agent/cb", false},
		{ep + "/..", false},
		{ep + "/./cb", false},
		{ep + "/.", false},
		{ep + "/cb/../../agent/cb", false},
		{ep + "/%2e%2e/agent/cb", false},
		{ep + "/%2E%2E/agent/cb", false},
		{ep + "/%2E./agent/cb", false},
		{ep + "/.%2e/agent/cb", false},
		{ep + "/%2e/cb", false},
		{ep + "/%252e%252e/agent/cb", false}, // decoded twice by a careless server
		{ep + "/..%2fagent/cb", false},
		{ep + "/x%2f..%2f..%2fagent", false},
		{ep + "/x%2F..%2F..%2Fagent", false},
		{ep + "/x%5c..%5cagent", false},
		{ep + "\\..\\agent\\cb", false},
		{ep + "/..\\agent", false},
		{ep + "/..;/agent/cb", false}, // a path parameter after a dot segment
		{ep + "/.;x/cb", false},
		{ep + "/%00/cb", false}, // control characters
		{ep + "/%zz/cb", false}, // broken escapes
		{ep + "/cb?x=1#/../../agent", true},
		{"http://127.0.0.1:3000/agent/cb", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := identity.UnderEntrypoint(ep, tt.uri); got != tt.want {
			t.Errorf("UnderEntrypoint(%q) = %v, want %v", tt.uri, got, tt.want)
		}
	}
}
