package identity_test

import (
	"strings"
	"testing"

	"github.com/platform/backend/domain/identity"
)

// TestEventTypesAreEventTypes: every entry is an event type
// (identity.<stream>.<past tense>), named once, and every event type
// constant of the package is listed; a stream type slipped into the list
// would make every projection "handle" a type no event has.
func TestEventTypesAreEventTypes(t *testing.T) {
	seen := map[string]bool{}
	for _, typ := range identity.EventTypes {
		if parts := strings.Split(typ, "."); len(parts) != 3 || parts[0] != "identity" {
			t.Errorf("%q is not an event type of the identity context (identity.<stream>.<event>)", typ)
		}
		if seen[typ] {
			t.Errorf("%q is listed twice", typ)
		}
		seen[typ] = true
	}
	for _, typ := range auditEventTypes(t) {
		if !seen[typ] {
			t.Errorf("event type %q is missing from EventTypes", typ)
		}
	}
}
