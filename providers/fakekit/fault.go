package fakekit

import (
	"net/http"
	"time"
)

// Kind is what a fake does with a call instead of serving it. A family of
// fakes may add kinds of its own (a stream that ends early, a token that
// expired); its Protocol says them.
type Kind string

const (
	// Succeed: the call is served (the zero Fault).
	Succeed Kind = ""
	// ServerError: the provider's 5xx in its error shape; Fault.Status
	// (default 500) where the protocol has a choice.
	ServerError Kind = "server_error"
	// RateLimit: the provider's rate limit (429, or its own code) with its
	// way of saying when to retry: Fault.RetryAfter (default 1s).
	RateLimit Kind = "rate_limit"
	// Unauthorized: the provider refuses the credential as if it were
	// wrong; Fault.Status (401 or 403) where the protocol has a choice.
	Unauthorized Kind = "unauthorized"
	// Reject: the provider refuses this request for good (an inactive
	// recipient, duplicate content, a declined card, a bad parameter);
	// Fault.Code picks one of the provider's codes or reasons, Fault.Status
	// the status where the protocol has a choice.
	Reject Kind = "reject"
	// Hang: nothing is done and nothing answered until the client gives up
	// (or the fake closes); then the connection is dropped.
	Hang Kind = "hang"
	// Hold: the call waits at Fault.Gate until the test lets it through,
	// then is served; it is dropped when the client gives up first.
	Hold Kind = "hold"
	// Malformed: 200 with a body that does not decode (nothing is done,
	// unless the protocol plays it on the answer).
	Malformed Kind = "malformed"
	// Cut: the answer is dropped mid-body (a stream: once Fault.After
	// deltas are out).
	Cut Kind = "cut"
	// AcceptThenTimeout: the call is done (a post stored, a message
	// accepted), then nothing is answered until the client gives up.
	AcceptThenTimeout Kind = "accept_then_timeout"
)

// Fault is one scripted behaviour. The zero Fault serves the call.
type Fault struct {
	Kind       Kind
	Status     int           // ServerError, Unauthorized, Reject: the HTTP status, where the protocol has a choice
	Code       string        // Reject (and a family's kinds): the provider's code or reason; the fake's default when empty
	RetryAfter time.Duration // RateLimit: default 1s
	After      int           // Cut (and a family's stream kinds): deltas sent before
	Gate       *Gate         // Hold
}

// Status is the fault a provider's answer with an HTTP error status is:
// 401 and 403 Unauthorized, 429 RateLimit, 5xx ServerError, any other
// Reject; the status is kept for the protocol to answer with.
func Status(code int) Fault {
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return Fault{Kind: Unauthorized, Status: code}
	case code == http.StatusTooManyRequests:
		return Fault{Kind: RateLimit}
	case code >= 500:
		return Fault{Kind: ServerError, Status: code}
	}
	return Fault{Kind: Reject, Status: code}
}

// StatusOr is the fault's status, or def when it names none.
func (f Fault) StatusOr(def int) int {
	if f.Status != 0 {
		return f.Status
	}
	return def
}

// Wait is the rate-limit wait the fake announces: RetryAfter, default 1s.
func (f Fault) Wait() time.Duration {
	if f.RetryAfter <= 0 {
		return time.Second
	}
	return f.RetryAfter
}

// RetryAfterSeconds is Wait in whole seconds, rounded up: a Retry-After
// header's value.
func (f Fault) RetryAfterSeconds() int {
	return int((f.Wait() + time.Second - 1) / time.Second)
}
