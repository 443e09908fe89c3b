package event

// AuditRule says how the audit view (projections/history) shows members of
// one event type's payload whose visibility depends on what happened after
// the event and on who reads. Secrets the view never shows to anyone are a
// context's AuditRedacted, not a rule. A context declares its rules per
// event type (module.Module.AuditRules); the history projection and its
// queries apply them, the same for every context.
type AuditRule struct {
	// Restricted members are shown to every reader of the history while the
	// event's state is current; once it is superseded (a later event of its
	// stream supersedes it, or the event is Final) only privileged readers
	// see them (organization admins and above: history:manage).
	Restricted []string
	// Supersedes: the event replaces the Restricted members of every earlier
	// event of its stream (an edit, a deletion).
	Supersedes bool
	// Final: the event's own Restricted members are superseded as it is
	// recorded (a deletion carrying the last state of what it deleted).
	Final bool
	// Erases: the event erases the Restricted members of every earlier
	// event of its stream for every reader, privileged ones included: they
	// are removed from the audit view's rows, in every rebuild too.
	Erases bool
}
