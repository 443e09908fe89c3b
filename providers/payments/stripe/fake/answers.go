package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// answer is what the fake sends for one call.
type answer struct {
	status int
	body   []byte
	header http.Header // beyond the ones every answer carries
	drop   bool        // no answer at all: the connection is closed
}

// apiError is a Stripe error object.
type apiError struct {
	status                                 int
	typ, code, declineCode, param, message string
}

const invalidRequest = "invalid_request_error"

func (e *apiError) answer(requestID string) answer {
	m := map[string]any{"type": e.typ, "message": e.message,
		"request_log_url": "https://dashboard.stripe.com/test/logs/" + requestID}
	if e.code != "" {
		m["code"] = e.code
		m["doc_url"] = "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(e.code, "_", "-")
	}
	if e.declineCode != "" {
		m["decline_code"] = e.declineCode
	}
	if e.param != "" {
		m["param"] = e.param
	}
	return answer{status: e.status, body: mustJSON(map[string]any{"error": m})}
}

func ok(obj map[string]any) answer {
	return answer{status: http.StatusOK, body: mustJSON(obj)}
}

// mustJSON marshals the fake's own maps of strings, numbers, booleans and
// nested maps and slices, which cannot fail; a failure is answered as a
// server error rather than a panic.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{"error":{"type":"api_error","message":"fake: cannot render the answer"}}`)
	}
	return b
}

func missing(param string) *apiError {
	return &apiError{status: 400, typ: invalidRequest, code: "parameter_missing", param: param,
		message: "Missing required param: " + param + "."}
}

func invalid(param, message string) *apiError {
	return &apiError{status: 400, typ: invalidRequest, code: "parameter_invalid", param: param, message: message}
}

func noSuch(object, id, param string) *apiError {
	return &apiError{status: 404, typ: invalidRequest, code: "resource_missing", param: param,
		message: fmt.Sprintf("No such %s: '%s'", object, id)}
}

func unexpectedState(code, message string) *apiError {
	return &apiError{status: 400, typ: invalidRequest, code: code, message: message}
}

func cardDeclined(declineCode string) *apiError {
	if declineCode == "" {
		declineCode = "generic_decline"
	}
	msg := "Your card was declined."
	if declineCode == "insufficient_funds" {
		msg = "Your card has insufficient funds."
	}
	return &apiError{status: 402, typ: "card_error", code: "card_declined", declineCode: declineCode, message: msg}
}
