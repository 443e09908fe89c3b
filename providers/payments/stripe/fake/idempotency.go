package fake

import (
	"net/http"
	"net/url"
)

// keyEntry is one Idempotency-Key's state under one API key and connected
// account (Stripe scopes keys that way).
type keyEntry struct {
	inFlight  bool
	endpoint  string // method and path of the first request
	params    string // its parameters, canonical
	first     answer
	requestID string // the first request's Request-Id (Original-Request)
}

// scopedKey is the idempotency map's key.
func scopedKey(apiKey, account, key string) string {
	return apiKey + "\x00" + account + "\x00" + key
}

// canonicalParams compares parameters, not bytes: another client may order
// the same parameters differently.
func canonicalParams(raw string) string {
	v, err := url.ParseQuery(raw)
	if err != nil {
		return raw
	}
	return v.Encode()
}

// stored says whether a result is kept under its key. Stripe keeps the
// result of any request that began executing, errors included, and none of
// a request refused before (bad parameters, rate limit).
func stored(status int) bool {
	return status/100 == 2 || status == http.StatusPaymentRequired || status >= 500
}

// checkKey answers a request whose key was seen, or registers the key in
// flight and returns nil. Caller holds s.mu.
func (s *Server) checkKey(k, endpoint, params, requestID string) *answer {
	e, seen := s.keys[k]
	if !seen {
		s.keys[k] = &keyEntry{inFlight: true, endpoint: endpoint, params: params}
		return nil
	}
	var a answer
	switch {
	case e.inFlight:
		a = (&apiError{status: http.StatusConflict, typ: "idempotency_error",
			message: "There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through). Please try again later."}).answer(requestID)
	case e.endpoint != endpoint:
		a = (&apiError{status: http.StatusBadRequest, typ: "idempotency_error",
			message: "Keys for idempotent requests can only be used for the same endpoint they were first used for."}).answer(requestID)
	case e.params != params:
		a = (&apiError{status: http.StatusBadRequest, typ: "idempotency_error",
			message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than the one used for the first request if you meant to execute a different request."}).answer(requestID)
	default:
		a = answer{status: e.first.status, body: e.first.body, header: http.Header{}}
		a.header.Set("Idempotent-Replayed", "true")
		a.header.Set("Original-Request", e.requestID)
	}
	return &a
}

// settleKey keeps the result under its key, or frees the key when Stripe
// would not have kept it. Caller holds s.mu.
func (s *Server) settleKey(k string, a answer, requestID string) {
	if k == "" {
		return
	}
	e, ok := s.keys[k]
	if !ok {
		return
	}
	if a.drop || !stored(a.status) {
		delete(s.keys, k)
		return
	}
	e.inFlight, e.first, e.requestID = false, a, requestID
}
