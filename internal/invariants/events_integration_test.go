package invariants_test

import (
	"slices"
	"testing"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/projections"
)

// TestEveryEventTypeIsHandledOrIgnored: each projection reading a context,
// and the context's notification mapping, name every event type the
// context's domain declares: handled, or explicitly ignored (Ignore,
// Silent). A new event type that a read model forgets fails here, not in
// production as a stale row; a type a table names that the domain does not
// declare is a typo.
func TestEveryEventTypeIsHandledOrIgnored(t *testing.T) {
	h := started(t)
	declared := map[string][]string{}
	for _, m := range app.Modules() {
		if m.Topic {
			declared[m.Name] = m.EventTypes
		}
	}
	covered := func(who string, table []string, contexts ...string) {
		var want []string
		for _, c := range contexts {
			want = append(want, declared[c]...)
		}
		for _, typ := range want {
			if !slices.Contains(table, typ) {
				t.Errorf("%s: event type %s is neither handled nor ignored", who, typ)
			}
		}
		for _, typ := range table {
			if !slices.Contains(want, typ) {
				t.Errorf("%s: names %s, which no context it reads declares", who, typ)
			}
		}
	}
	for _, name := range h.App.Engine.Names() {
		p, _ := h.App.Engine.Projection(name)
		switch p := p.(type) {
		case projections.Declared:
			covered("projection "+name, p.Reducers().Types(), p.Contexts()...)
		case projections.EveryType:
		default:
			if name != "notifications" { // the mappings below are its table
				t.Errorf("projection %s declares no reducer table (projections.Declared) nor EveryType", name)
			}
		}
	}
	for _, m := range app.Modules() {
		if mapping := h.App.Parts[m.Name].Notifications; mapping != nil {
			covered("notifications of "+m.Name, mapping.Types(), m.Name)
		}
	}
}
