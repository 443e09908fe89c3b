package apptest

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// Problem is the one error body of every service (RFC 9457 + code).
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
	Errors    []struct {
		Pointer string `json:"pointer"`
		Detail  string `json:"detail"`
	} `json:"errors"`
}

// ExpectProblem checks the one error shape of every service: the status,
// the problem media type, the code, and the request id the header carries.
func ExpectProblem(t testing.TB, res Response, status int, code string) Problem {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q, want application/problem+json", ct)
	}
	var p Problem
	res.JSON(t, &p)
	if p.Code != code || p.Status != status || p.Title == "" || p.Type == "" {
		t.Fatalf("problem %+v, want code %s status %d", p, code, status)
	}
	if p.RequestID == "" || p.RequestID != res.Header.Get("X-Request-Id") {
		t.Fatalf("problem request_id %q, header X-Request-Id %q", p.RequestID, res.Header.Get("X-Request-Id"))
	}
	return p
}

// Must fails the test unless res has status.
func Must(t testing.TB, res Response, status int, what string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("%s: status %d, want %d: %s", what, res.Status, status, res.Body)
	}
}

// Count runs a count query on the platform's database.
func (h *Harness) Count(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := h.App.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Events counts the events of a context's streams (stream types
// "<context>.*"): what a test checks a refused command did not append.
// Other contexts' reactors may append meanwhile (the gateway provisions every
// new organization), so a count over every stream would race with them.
func (h *Harness) Events(t testing.TB, context string) int64 {
	t.Helper()
	return h.Count(t, `SELECT count(*) FROM es_events WHERE stream_type LIKE $1`, context+".%")
}

// CreateIncident opens an incident through the status service with token
// ("" the harness key) and returns its id and position.
func (h *Harness) CreateIncident(t testing.TB, token string) (string, string) {
	t.Helper()
	res := h.Do(t, "status", http.MethodPost, "/api/incidents", token, map[string]any{"title": "Errors", "message": "Investigating", "severity": "minor"})
	Must(t, res, http.StatusCreated, "create incident")
	var inc struct {
		IncidentID string `json:"incident_id"`
	}
	res.JSON(t, &inc)
	return inc.IncidentID, res.Header.Get("X-Platform-Position")
}

// KeyID reads the key id out of a platform API key (pk_<id>.<secret>).
func KeyID(token string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(token, "pk_"), ".")
	return id
}

// Pointers are the members a 422 names, in order.
func (p Problem) Pointers() []string {
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Pointer)
	}
	return out
}
