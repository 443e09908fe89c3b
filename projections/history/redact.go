package history

import (
	"encoding/json"
	"slices"

	"github.com/platform/backend/domain/event"
)

// Redactions name, per event type, the payload members the audit view never
// shows (secrets, their hashes, sealed second factors). Each context declares
// its own (domain/identity.AuditRedacted); internal/app merges them and gives
// the same value to the projection, which drops the members when it records
// an event (live and in every rebuild), and to the queries, which drop them
// again from what they answer, so rows recorded before a declaration existed
// do not show them either.
type Redactions map[string][]string

// MergeRedactions combines the declarations of several contexts.
func MergeRedactions(all ...map[string][]string) Redactions {
	out := Redactions{}
	for _, m := range all {
		for typ, members := range m {
			out[typ] = append(out[typ], members...)
		}
	}
	return out
}

// Apply returns payload without the members declared for eventType. A
// payload that is not a JSON object is returned as it is (nothing to drop).
func (r Redactions) Apply(eventType string, payload json.RawMessage) (json.RawMessage, error) {
	members := r[eventType]
	if len(members) == 0 {
		return payload, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(payload, &m) != nil || m == nil {
		return payload, nil
	}
	changed := false
	for _, k := range members {
		if _, ok := m[k]; ok {
			delete(m, k)
			changed = true
		}
	}
	if !changed {
		return payload, nil
	}
	return json.Marshal(m)
}

// Rules are the audit rules of every context (event.AuditRule), merged:
// members shown while current, to privileged readers once superseded, and
// to nobody once erased. The projection erases (rewrites earlier rows of
// the stream, live and in every rebuild); the queries decide, per row and
// reader, from the later events of its stream, so rows recorded before a
// rule existed follow it too.
type Rules map[string]event.AuditRule

// MergeRules combines the declarations of several contexts.
func MergeRules(all ...map[string]event.AuditRule) Rules {
	out := Rules{}
	for _, m := range all {
		for typ, r := range m {
			out[typ] = r
		}
	}
	return out
}

// types lists the event types whose rule has is true, sorted.
func (r Rules) types(has func(event.AuditRule) bool) []string {
	var out []string
	for typ, rule := range r {
		if has(rule) {
			out = append(out, typ)
		}
	}
	slices.Sort(out)
	return out
}

func (r Rules) restrictedTypes() []string {
	return r.types(func(a event.AuditRule) bool { return len(a.Restricted) > 0 })
}
func (r Rules) supersedingTypes() []string {
	return r.types(func(a event.AuditRule) bool { return a.Supersedes })
}
func (r Rules) erasingTypes() []string {
	return r.types(func(a event.AuditRule) bool { return a.Erases })
}

// restrictedMembers are every type's Restricted members, sorted, once each.
func (r Rules) restrictedMembers() []string {
	var out []string
	for _, rule := range r {
		for _, m := range rule.Restricted {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Show returns what a reader sees of a row's payload: its Restricted
// members dropped when the row is erased (for everyone) or, unless the
// reader is privileged, superseded (a later event of its stream replaced
// it, or its type is Final).
func (r Rules) Show(eventType string, payload json.RawMessage, superseded, erased, privileged bool) (json.RawMessage, error) {
	rule, ok := r[eventType]
	if !ok || len(rule.Restricted) == 0 {
		return payload, nil
	}
	if !erased && (privileged || !superseded && !rule.Final) {
		return payload, nil
	}
	return Redactions{eventType: rule.Restricted}.Apply(eventType, payload)
}
