package delivery

// Receipt is a successful attempt: the provider accepted the message.
type Receipt struct {
	Provider string
	// MessageID is the provider's id for the message; webhooks name it.
	MessageID string
	// RequestID is the provider's request id header for this call, if any.
	RequestID string
	Units     Units
}

// Units are the raw quantities the gateway meters.
type Units struct {
	// Messages is the count of recipients the message was accepted for
	// (to + cc + bcc for email, 1 for an instant message).
	Messages int
	// Characters is the length in characters of a text instant message;
	// zero where it means nothing (email, templates).
	Characters int
}
