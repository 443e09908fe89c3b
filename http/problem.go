// Package httpapi is the HTTP face of every service: one router per service
// listener, the shared middleware, and one file of routes per service.
// Handlers only decode, call and encode; this file is the one place where
// errors become status codes and bodies.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// Problem is the RFC 9457 body every service answers errors with.
type Problem struct {
	Type      string       `json:"type"`
	Title     string       `json:"title"`
	Status    int          `json:"status"`
	Detail    string       `json:"detail,omitempty"`
	Code      string       `json:"code"`
	RequestID string       `json:"request_id"`
	Errors    []errs.Field `json:"errors,omitempty"`
	// Extensions are written beside the members above; they never replace one.
	Extensions map[string]any `json:"-"`
}

// MarshalJSON writes the extension members beside the standard ones.
func (p Problem) MarshalJSON() ([]byte, error) {
	type standard Problem
	raw, err := json.Marshal(standard(p))
	if err != nil || len(p.Extensions) == 0 {
		return raw, err
	}
	var all map[string]any
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	for k, v := range p.Extensions {
		if _, taken := all[k]; !taken {
			all[k] = v
		}
	}
	return json.Marshal(all)
}

var statusOf = map[errs.Kind]int{
	errs.KindInvalidInput:           http.StatusUnprocessableEntity,
	errs.KindNotFound:               http.StatusNotFound,
	errs.KindConflict:               http.StatusConflict,
	errs.KindAuthenticationRequired: http.StatusUnauthorized,
	errs.KindPermissionDenied:       http.StatusForbidden,
	errs.KindRateLimited:            http.StatusTooManyRequests,
	errs.KindUnavailable:            http.StatusServiceUnavailable,
	errs.KindIdempotencyMismatch:    http.StatusUnprocessableEntity,
	errs.KindTooLarge:               http.StatusRequestEntityTooLarge,
	errs.KindPaymentRequired:        http.StatusPaymentRequired,
	errs.KindBadGateway:             http.StatusBadGateway,
	errs.KindGatewayTimeout:         http.StatusGatewayTimeout,
}

// StatusClientClosedRequest is the answer to a client that went away before
// it was answered (nginx's 499): nobody reads it, and it is no server error.
const StatusClientClosedRequest = 499

// problemsTotal counts problem answers by status, so a dashboard can tell
// server errors (5xx) from clients' mistakes and clients that left (499).
var problemsTotal = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "platform_http_problems_total",
	Help: "Problem answers by HTTP status (499: the client closed the request; not a server error).",
}, []string{"status"})

// kernelProblem is an answer only the HTTP kernel gives, about the protocol
// rather than the domain (405, 408, 415, 431): domain errors never need
// these statuses, so they are not errs kinds.
type kernelProblem struct {
	status  int
	code    string
	message string
	header  http.Header // e.g. Allow of a 405
}

func (e *kernelProblem) Error() string { return e.code + ": " + e.message }

// clientGone tells an error caused by the client abandoning the request from
// a failure of ours: the request's context is canceled only when the client
// closed the connection (or reset the stream), never by our own deadlines.
func clientGone(r *http.Request, err error) bool {
	return err != nil && errors.Is(r.Context().Err(), context.Canceled)
}

// WriteError encodes any error as a problem. Untyped errors are 500s whose
// cause is logged, never shown.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	status, p := problemFor(r, log, err, w.Header())
	problemsTotal.WithLabelValues(strconv.Itoa(status)).Inc()
	if d := dialectOf(r.Context()); d != nil {
		writeJSON(w, status, "application/json", d.Body(status, p))
		return
	}
	writeJSON(w, status, "application/problem+json", p)
}

// problemFor is the one mapping from an error to a problem: its status, its
// body, and the headers it sets (Retry-After, Allow). A stream that already
// started writes the same body as its error event.
func problemFor(r *http.Request, log *slog.Logger, err error, header http.Header) (int, Problem) {
	var kp *kernelProblem
	if errors.As(err, &kp) {
		// Before the client-gone check: a body read that ran into the read
		// deadline cancels the request's context too (net/http does on any
		// read error), yet the client may still be reading: it gets its 408.
		for k, vs := range kp.header {
			header[k] = vs
		}
		return kp.status, newProblem(r, kp.status, kp.code, kp.message, nil, nil)
	}
	if clientGone(r, err) {
		// Routine (a closed tab, a client timeout): whatever failed failed
		// because the client left, so it is neither an ERROR line nor a 5xx.
		log.Debug("client closed request", "err", err, "request_id", RequestID(r.Context()), "path", r.URL.Path)
		return StatusClientClosedRequest, newProblem(r, StatusClientClosedRequest, "client_closed_request", "the client closed the request", nil, nil)
	}
	e := classify(r, log, err)
	status, ok := statusOf[e.Kind]
	if !ok {
		status = http.StatusInternalServerError
	}
	if override, set := r.Context().Value(invalidInputStatusKey{}).(int); set && e.Kind == errs.KindInvalidInput {
		status = override
	}
	if e.RetryAfterSeconds > 0 {
		header.Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	} else if status == http.StatusServiceUnavailable {
		header.Set("Retry-After", "1")
	}
	return status, newProblem(r, status, e.Code, e.Message, e.Fields, e.Extensions)
}

// classify is the typed error an error is answered as. Untyped errors are
// classified here, once for every route: an outage of the database or the
// broker (eventstore.IsTransient: a connection refused or killed, SQLSTATE
// 08, 53, 57 as in a fast shutdown, a timeout) is 503 dependency_unavailable
// with Retry-After, for reads as for writes (the event store classifies
// its own); a body past its bound is 413; anything else is a 500 whose
// cause is logged, never shown.
func classify(r *http.Request, log *slog.Logger, err error) *errs.Error {
	if e, ok := errs.As(err); ok && !errors.Is(err, context.DeadlineExceeded) {
		if e.Kind == errs.KindUnavailable && e.Err != nil {
			log.Warn("dependency unavailable", "err", e.Err, "request_id", RequestID(r.Context()))
		}
		return e
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errs.Unavailable("the request timed out", err)
	case errors.As(err, &tooLarge):
		return errs.TooLarge("payload_too_large", "the request body is larger than "+strconv.FormatInt(tooLarge.Limit, 10)+" bytes")
	case eventstore.IsTransient(err):
		log.Warn("dependency unavailable", "err", err, "request_id", RequestID(r.Context()), "path", r.URL.Path)
		return errs.Unavailable("a dependency is unavailable; try again shortly", err)
	}
	log.Error("internal error", "err", err, "request_id", RequestID(r.Context()), "path", r.URL.Path)
	return &errs.Error{Kind: errs.KindInternal, Code: "internal_error", Message: "an unexpected error occurred"}
}

type invalidInputStatusKey struct{}

// withInvalidInputStatus makes invalid input answer status (0: the
// platform's 422) on every route of a service, kernel checks included.
func withInvalidInputStatus(next http.Handler, status int) http.Handler {
	if status == 0 || status == http.StatusUnprocessableEntity {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, InvalidInputAs(r, status))
	})
}

// InvalidInputAs is r with its invalid input answered status instead of
// 422 (the same problem, code and pointers): the one way a seed's 400 is
// said, for a whole service (Service.InvalidInputStatus), an action
// (Action.InvalidStatus) or a plain route.
func InvalidInputAs(r *http.Request, status int) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), invalidInputStatusKey{}, status))
}

// newProblem is the one place a problem body is made.
func newProblem(r *http.Request, status int, code, detail string, fields []errs.Field, ext map[string]any) Problem {
	title := http.StatusText(status)
	if status == StatusClientClosedRequest {
		title = "Client Closed Request"
	}
	return Problem{Type: "https://platform.local/problems/" + code, Title: title, Status: status,
		Detail: detail, Code: code, RequestID: RequestID(r.Context()), Errors: fields, Extensions: ext}
}

func writeJSON(w http.ResponseWriter, status int, contentType string, body any) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	if e, ok := body.(encodedAnswer); ok {
		// json.Marshal's bytes already: what Encode would write, without
		// the reflection and the compaction.
		_, _ = w.Write(e)
		_, _ = w.Write(newline)
		return
	}
	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
}

var newline = []byte{'\n'}

// WriteJSON answers a success.
func WriteJSON(w http.ResponseWriter, status int, body any) {
	writeJSON(w, status, "application/json", body)
}

// PageStatus is for routes that answer people in HTML (the status page): the
// status a problem for err would carry, with its Retry-After set on w,
// counted and logged as WriteError does; the page writes its own body.
// A client that left gets 499 written and 0 back: nothing more to write.
func PageStatus(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) int {
	if clientGone(r, err) {
		problemsTotal.WithLabelValues(strconv.Itoa(StatusClientClosedRequest)).Inc()
		w.WriteHeader(StatusClientClosedRequest)
		return 0
	}
	e := classify(r, log, err)
	status, known := statusOf[e.Kind]
	if !known {
		status = http.StatusInternalServerError
	}
	if e.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	}
	if status >= 500 && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "5")
	}
	problemsTotal.WithLabelValues(strconv.Itoa(status)).Inc()
	return status
}
