package gateway

import "slices"

// EventTypes are every event type of the gateway context: each area's list,
// merged (the invariant tests check every projection and mapping of the
// context against them). A new area adds its list here.
var EventTypes = slices.Concat(
	UsageEventTypes,
	BillingEventTypes,
	MeterEventTypes,
	HealthEventTypes,
	OrganizationEventTypes,
)

// SnapshotSchema is the format of the gateway write models' snapshots: bump
// it whenever a State changes shape (older snapshots are then ignored and
// streams fold from their first event).
const SnapshotSchema = 1
