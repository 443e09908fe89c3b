package history

import (
	"encoding/json"
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
