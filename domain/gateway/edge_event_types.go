package gateway

import "slices"

// EdgeEventTypes are the event types of the gateway's edge: connections and
// their credentials, email profiles, deliveries, inbound webhooks and the
// expiry scan (merged into EventTypes).
var EdgeEventTypes = slices.Concat(
	ConnectionEventTypes,
	CredentialEventTypes,
	EmailProfileEventTypes,
	DeliveryEventTypes,
	WebhookEventTypes,
	ExpiryScanEventTypes,
)
