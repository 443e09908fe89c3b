package contacts

import "github.com/platform/backend/domain/event"

// AuditRules: what a note said is the contact's own business. The audit
// history (every holder of history:read, guests included) shows a note's
// body while it is the note's current text; an edit supersedes the earlier
// bodies and a deletion all of them, which then only privileged readers
// (organization admins and above) see; an erasure removes every body of
// the note from the history for everyone, in every rebuild too.
var AuditRules = map[string]event.AuditRule{
	NoteAdded:   {Restricted: []string{"body"}},
	NoteUpdated: {Restricted: []string{"body"}, Supersedes: true},
	NoteDeleted: {Restricted: []string{"body"}, Supersedes: true, Final: true},
	NoteErased:  {Erases: true},
}
