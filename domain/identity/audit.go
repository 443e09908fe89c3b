package identity

// AuditRedacted names, per event type, the payload members the audit view
// (projections/history, served to every holder of history:read, guests
// included) never shows: secrets, hashes of secrets and of passwords, sealed
// second factors, and the keyed email hash (the sign-in lookup value of a
// person). The history projection drops them when it records an event, in
// the live generation and in every rebuild, and its queries drop them again
// from what they answer (rows recorded before a member was declared).
//
// The declaration is per event type so that a member name meaning a secret
// in one event cannot hide a fact of another; TestAuditRedactedCoversSecrets
// walks every event type of the context and fails on an undeclared secret.
var AuditRedacted = map[string][]string{
	APIKeyCreated:          {"secret_hash"},
	UserCreated:            {"email_hash", "password_hash"},
	UserPasswordChanged:    {"password_hash"},
	SessionStarted:         {"access_hash", "refresh_hash"},
	SessionRefreshed:       {"access_hash", "refresh_hash"},
	UserMFAEnrolled:        {"mfa_secret"},
	UserMFAConfirmed:       {"backup_code_hashes"},
	MFAChallengeIssued:     {"secret_hash"},
	MagicLinkIssued:        {"secret_hash"},
	SSOCodeIssued:          {"secret_hash"},
	PasswordResetRequested: {"secret_hash"},
	InvitationCreated:      {"email_hash", "secret_hash"},
	CheckoutProvisioned:    {"email_hash"},
}
