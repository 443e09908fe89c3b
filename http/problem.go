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

	"github.com/platform/backend/domain/errs"
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
}

// WriteError encodes any error as a problem. Untyped errors are 500s whose
// cause is logged, never shown.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	e, ok := errs.As(err)
	if !ok || errors.Is(err, context.DeadlineExceeded) {
		if errors.Is(err, context.DeadlineExceeded) {
			e = errs.Unavailable("the request timed out", err)
		} else {
			log.Error("internal error", "err", err, "request_id", RequestID(r.Context()), "path", r.URL.Path)
			e = &errs.Error{Kind: errs.KindInternal, Code: "internal_error", Message: "an unexpected error occurred"}
		}
	}
	if e.Kind == errs.KindUnavailable && e.Err != nil {
		log.Warn("dependency unavailable", "err", e.Err, "request_id", RequestID(r.Context()))
	}
	status, ok := statusOf[e.Kind]
	if !ok {
		status = http.StatusInternalServerError
	}
	if e.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	} else if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, "application/problem+json", Problem{
		Type: "https://platform.local/problems/" + e.Code, Title: http.StatusText(status), Status: status,
		Detail: e.Message, Code: e.Code, RequestID: RequestID(r.Context()), Errors: e.Fields, Extensions: e.Extensions,
	})
}

func writeJSON(w http.ResponseWriter, status int, contentType string, body any) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
}

// WriteJSON answers a success.
func WriteJSON(w http.ResponseWriter, status int, body any) {
	writeJSON(w, status, "application/json", body)
}
