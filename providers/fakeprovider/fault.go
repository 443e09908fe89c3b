// Package fakeprovider is what the provider fakes (providers/*/*/fake)
// share: the faults a test scripts, the record of every request, the
// deterministic ids, the local HTTP server, and the POST of a signed
// webhook. Each fake speaks its own provider's protocol on top of it.
package fakeprovider

import "time"

// FaultKind is what a fake does with a call instead of succeeding.
type FaultKind string

const (
	// Succeed: the provider accepts the message (the default).
	Succeed FaultKind = ""
	// Reject: the provider refuses this message for good, with its own
	// status and error body (Postmark 422 ErrorCode 406, Resend 422
	// validation_error, WhatsApp 400 code 131030); Fault.Code picks another
	// of the provider's codes.
	Reject FaultKind = "reject"
	// Unauthorized: the provider refuses the credential as if it were
	// wrong (401/403 with its body).
	Unauthorized FaultKind = "unauthorized"
	// ServerError: 500 with the provider's error body.
	ServerError FaultKind = "server_error"
	// RateLimit: 429 with Retry-After (Fault.RetryAfter, default 1s).
	RateLimit FaultKind = "rate_limit"
	// Hang: no answer until the request's context ends (the client's
	// timeout or cancel) or the fake closes.
	Hang FaultKind = "hang"
	// Malformed: 200 with a body that is not the provider's JSON.
	Malformed FaultKind = "malformed"
)

// Fault is one scripted answer.
type Fault struct {
	Kind       FaultKind
	Code       string        // provider error code for Reject; the fake's default when empty
	RetryAfter time.Duration // RateLimit only; whole seconds on the wire
}

// RetryAfterSeconds is the Retry-After value the fake sends.
func (f Fault) RetryAfterSeconds() int {
	if f.RetryAfter <= 0 {
		return 1
	}
	return int((f.RetryAfter + time.Second - 1) / time.Second)
}
