package fake

import (
	"net/http"
	"strconv"

	"github.com/platform/backend/providers/fakekit"
)

// Faults are fakekit's, scripted on the Server (any call) or on
// s.On(operation) (one operation of the table, "payment_intents.create"),
// and taken once a call is admitted (authenticated, to a served path).
// Stripe says them so:
//
//   - RateLimit: 429, code rate_limit, Retry-After (Fault.RetryAfter,
//     default 1s), Stripe-Should-Retry: true. Refused before anything runs:
//     nothing is stored under the call's Idempotency-Key.
//   - Unauthorized: 401 invalid_request_error, as for a revoked key; nothing
//     stored.
//   - Malformed: 200 with a proxy's page, not JSON. Nothing stored.
//   - Hang: no answer until the client gives up (or the fake closes); then
//     the connection is dropped. The key stays in flight meanwhile, and is
//     free again after.
//   - Hold: the call waits at Fault.Gate, its Idempotency-Key in flight,
//     until the test lets it through; then it is served normally. A test
//     waits for Gate.Entered to know the call is provably in flight.
//   - ServerError: 500, type api_error, Stripe-Should-Retry: true. Like
//     Stripe, a 500 is stored under the key and replayed.
//   - Reject: 402 card_error, code card_declined, decline code Fault.Code
//     (default generic_decline). Stored under the key.
//
// The decisions are Stripe's order: refusals first, then the idempotency
// key, then the wait, then the failures of a call that ran.

// refusedFirst answers the faults Stripe refuses before anything runs.
func refusedFirst(f fakekit.Fault, requestID string) (answer, bool) {
	switch f.Kind {
	case fakekit.RateLimit:
		a := (&apiError{status: 429, typ: invalidRequest, code: "rate_limit",
			message: "Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits."}).answer(requestID)
		a.header = http.Header{"Retry-After": {strconv.Itoa(f.RetryAfterSeconds())}, "Stripe-Should-Retry": {"true"}}
		return a, true
	case fakekit.Unauthorized:
		return (&apiError{status: f.StatusOr(http.StatusUnauthorized), typ: invalidRequest,
			message: "Invalid API Key provided: sk_test_****"}).answer(requestID), true
	case fakekit.Malformed: // a proxy's page instead of Stripe's answer
		return answer{status: 200, body: []byte("<html><body>502 Bad Gateway</body></html>"),
			header: http.Header{"Content-Type": {"text/html"}}}, true
	}
	return answer{}, false
}

// wait plays Hang and Hold; false when the call ends without an answer.
func wait(r *http.Request, f fakekit.Fault) bool {
	switch f.Kind {
	case fakekit.Hang:
		<-r.Context().Done()
		return false
	case fakekit.Hold:
		return f.Gate == nil || f.Gate.Wait(r.Context())
	}
	return true
}

// failedAfter answers the faults of a call that ran: stored under its key.
func failedAfter(f fakekit.Fault, requestID string) (answer, bool) {
	switch f.Kind {
	case fakekit.ServerError:
		a := (&apiError{status: f.StatusOr(http.StatusInternalServerError), typ: "api_error",
			message: "An unknown error occurred while processing your request."}).answer(requestID)
		a.header = http.Header{"Stripe-Should-Retry": {"true"}}
		return a, true
	case fakekit.Reject:
		return cardDeclined(f.Code).answer(requestID), true
	}
	return answer{}, false
}
