package httpapi_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
)

// kernelPointers lists a problem's pointers.
func kernelPointers(p apptest.Problem) []string {
	out := make([]string, 0, len(p.Errors))
	for _, e := range p.Errors {
		out = append(out, e.Pointer)
	}
	return out
}

// TestBodyMustBeAnObject: a body of null, an array, a number or a string,
// together with query or path parameters, is 422 invalid_input at the
// document's root on every kind of route (public, authenticated, path
// parameter), never a panic.
func TestBodyMustBeAnObject(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	routes := []struct{ service, method, path, token string }{
		{"identity", http.MethodPost, "/login?x=1", "-"},
		{"status", http.MethodGet, "/api/status?x=1", "-"},
		{"status", http.MethodPatch, "/api/incidents/0190a0a0-0000-7000-8000-000000000000", ""},
		{"status", http.MethodPut, "/api/components/web", ""},
		{"ops", http.MethodGet, "/api/history?limit=1", ""},
	}
	for _, body := range []string{"null", "[]", `[{"title":"x"}]`, "42", `"text"`, "true"} {
		for _, r := range routes {
			t.Run(r.method+" "+r.path+" "+body, func(t *testing.T) {
				p := apptest.ExpectProblem(t, h.Do(t, r.service, r.method, r.path, r.token, []byte(body)), http.StatusUnprocessableEntity, "invalid_input")
				if got := kernelPointers(p); len(got) != 1 || got[0] != "" {
					t.Fatalf("pointers %q, want the root \"\"", got)
				}
			})
		}
	}
	// An empty body is still no input at all.
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/status?x=1", "-", nil), http.StatusUnprocessableEntity, "unknown query member")
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/status", "-", []byte("  ")), http.StatusOK, "blank body")
}

// TestNULAndInvalidUTF8AreRefused: U+0000 anywhere in the input (body member
// at any depth, member name, path or query parameter) and invalid UTF-8 in
// the headers that reach the database are 422 naming the member, on every
// service, before anything is written or read.
func TestNULAndInvalidUTF8AreRefused(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	incident, _ := h.CreateIncident(t, "")
	before := h.Count(t, `SELECT count(*) FROM es_events`)
	cases := []struct {
		name, service, method, path string
		body                        any
		headers                     []string
		pointer                     string
	}{
		{"body member", "status", http.MethodPost, "/api/incidents", map[string]any{"title": "a\x00b", "message": "m", "severity": "minor"}, nil, "/title"},
		{"nested member", "status", http.MethodPost, "/api/incidents",
			[]byte(`{"title":"t","message":"m","severity":"minor","extra":{"a/b":[1,{"c~":"\u0000"}]}}`), nil, "/extra/a~1b/1/c~0"},
		{"member name", "status", http.MethodPost, "/api/incidents", []byte(`{"title":"t","message":"m","severity":"minor","x\u0000":1}`), nil, "/x\x00"},
		{"path parameter", "status", http.MethodPatch, "/api/incidents/a%00b", map[string]any{"message": "m"}, nil, "/incidentId"},
		{"query parameter", "status", http.MethodGet, "/api/incidents?incidentId=%00", nil, nil, "/incidentId"},
		{"history streamId", "ops", http.MethodGet, "/api/history?streamId=" + url.QueryEscape("s\x00"), nil, nil, "/streamId"},
		{"history type", "ops", http.MethodGet, "/api/history?type=%00", nil, nil, "/type"},
		{"public route", "identity", http.MethodPost, "/login", map[string]any{"email": "a\x00@example.com", "password": "x"}, nil, "/email"},
		{"idempotency key", "status", http.MethodPatch, "/api/incidents/" + incident, map[string]any{"message": "m"},
			[]string{"Idempotency-Key", "key-\xff\xfe"}, "/header/Idempotency-Key"},
		{"min position", "status", http.MethodGet, "/api/incidents", nil, []string{"X-Platform-Min-Position", "s\xff@1"}, "/header/X-Platform-Min-Position"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := apptest.ExpectProblem(t, h.Do(t, c.service, c.method, c.path, "", c.body, c.headers...), http.StatusUnprocessableEntity, "invalid_input")
			if got := kernelPointers(p); len(got) != 1 || got[0] != c.pointer {
				t.Fatalf("pointers %q, want [%q]", got, c.pointer)
			}
		})
	}
	if after := h.Count(t, `SELECT count(*) FROM es_events`); after != before {
		t.Fatalf("refused input appended %d events", after-before)
	}
}

// TestMediaTypes: a mutating request with a body must say it is JSON
// (application/json or a +json type, parameters allowed); a request without a
// body needs no Content-Type; the magic-link confirmation form stays a form.
func TestMediaTypes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	incident, _ := h.CreateIncident(t, "")
	create := []byte(`{"title":"t","message":"m","severity":"minor"}`)
	for _, c := range []struct {
		name, method, path, contentType string
		body                            []byte
		status                          int
	}{
		{"text/plain", http.MethodPost, "/api/incidents", "text/plain", create, http.StatusUnsupportedMediaType},
		{"form", http.MethodPost, "/api/incidents", "application/x-www-form-urlencoded", create, http.StatusUnsupportedMediaType},
		{"no content type", http.MethodPost, "/api/incidents", "", create, http.StatusUnsupportedMediaType},
		{"garbage content type", http.MethodPut, "/api/components/web", ";;", []byte(`{}`), http.StatusUnsupportedMediaType},
		{"json look-alike", http.MethodPatch, "/api/incidents/" + incident, "application/jsonx", []byte(`{"message":"m"}`), http.StatusUnsupportedMediaType},
		{"json with charset", http.MethodPost, "/api/incidents", "application/json; charset=utf-8", create, http.StatusCreated},
		{"json upper case", http.MethodPost, "/api/incidents", "Application/JSON", create, http.StatusCreated},
		{"+json", http.MethodPatch, "/api/incidents/" + incident, "application/merge-patch+json", []byte(`{"message":"m"}`), http.StatusOK},
		{"no body", http.MethodPost, "/poll", "", nil, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, h.URLs["status"]+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.body != nil {
				req.Body, req.ContentLength = io.NopCloser(strings.NewReader(string(c.body))), int64(len(c.body))
			}
			req.Header.Set("Authorization", "Bearer "+h.APIKey)
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
			res := kernelSend(t, h, req)
			if c.status == http.StatusUnsupportedMediaType {
				apptest.ExpectProblem(t, res, c.status, "unsupported_media_type")
				return
			}
			apptest.Must(t, res, c.status, c.name)
		})
	}
	// The magic-link confirmation is a browser form: it reaches its CSRF check.
	form := []byte(url.Values{"token": {"ml_x"}, "csrf": {"y"}}.Encode())
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/magic-link/consume", "-", form, "Content-Type", "application/x-www-form-urlencoded"),
		http.StatusForbidden, "permission_denied")
}

func kernelSend(t *testing.T, h *apptest.Harness, req *http.Request) apptest.Response {
	t.Helper()
	resp, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return apptest.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// TestMethodNotAllowed: a declared path with an undeclared method is 405
// with the path's methods in Allow; an undeclared path stays 404.
func TestMethodNotAllowed(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	for _, c := range []struct{ service, method, path, allow string }{
		{"status", http.MethodDelete, "/api/incidents", "GET, POST"},
		{"status", http.MethodGet, "/api/incidents/0190a0a0-0000-7000-8000-000000000000", "PATCH"},
		{"status", http.MethodPost, "/api/status", "GET"},
		{"ops", http.MethodPost, "/metrics", "GET"},
		{"identity", http.MethodGet, "/magic-link/consume?token=x", ""}, // served: GET and POST
		{"identity", http.MethodPut, "/magic-link/consume", "GET, POST"},
		// A literal path beside a parameter of the same segment
		// (/api/api-keys/{keyId}): its methods, whatever the method asked.
		{"identity", http.MethodPatch, "/api/api-keys/options", "GET"},
		{"identity", http.MethodDelete, "/api/api-keys/options", "GET"},
		{"identity", "TRACE", "/api/api-keys/options", "GET"},
		{"identity", http.MethodPost, "/api/api-keys/options", "GET"},
		{"identity", "TRACE", "/logout", "POST"},
		{"identity", "TRACE", "/api/organizations", "POST"},
	} {
		t.Run(c.service+" "+c.method+" "+c.path, func(t *testing.T) {
			res := h.Do(t, c.service, c.method, c.path, "", nil)
			if c.allow == "" {
				if res.Status == http.StatusMethodNotAllowed {
					t.Fatalf("a served method answered 405: %s", res.Body)
				}
				return
			}
			apptest.ExpectProblem(t, res, http.StatusMethodNotAllowed, "method_not_allowed")
			if got := res.Header.Get("Allow"); got != c.allow {
				t.Fatalf("Allow %q, want %q", got, c.allow)
			}
		})
	}
	apptest.ExpectProblem(t, h.Do(t, "status", http.MethodDelete, "/api/nowhere", "", nil), http.StatusNotFound, "not_found")
}

// TestSecurityHeaders: every answer of every service says nosniff; the
// answer that shows a new API key's secret is not stored by caches; a request
// header block over the limit is a 431 problem.
func TestSecurityHeaders(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	for _, c := range []struct{ service, method, path string }{
		{"status", http.MethodGet, "/api/status"},
		{"status", http.MethodGet, "/api/health"},
		{"status", http.MethodGet, "/api/nowhere"},
		{"status", http.MethodDelete, "/api/status"},
		{"status", http.MethodPost, "/api/incidents"},
		{"identity", http.MethodGet, "/session/channel"},
		{"identity", http.MethodGet, "/.well-known/jwks.json"},
		{"ops", http.MethodGet, "/metrics"},
		{"ops", http.MethodGet, "/api/openapi.json"},
	} {
		res := h.Do(t, c.service, c.method, c.path, "", nil)
		if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s %s %s (%d): X-Content-Type-Options %q", c.service, c.method, c.path, res.Status, got)
		}
	}
	res := h.Do(t, "identity", http.MethodPost, "/api/api-keys", "", map[string]any{"name": "k", "service": "status", "scopes": []string{"status:read"}})
	apptest.Must(t, res, http.StatusCreated, "create key")
	if got := res.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("API key creation: Cache-Control %q, want no-store", got)
	}
	big := strings.Repeat("a", 100<<10)
	res = h.Do(t, "status", http.MethodGet, "/api/status", "-", nil, "X-Padding", big)
	apptest.ExpectProblem(t, res, http.StatusRequestHeaderFieldsTooLarge, "request_header_too_large")
	if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("431: X-Content-Type-Options %q", got)
	}
}

// TestStalledBodyIsCut: a client that declares a body and stops sending it
// loses its connection within the read timeout, on a public route too.
func TestStalledBodyIsCut(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		c.HTTP.ReadHeaderTimeout, c.HTTP.ReadTimeout = time.Second, time.Second
	}})
	for _, c := range []struct{ service, route string }{
		{"identity", "POST /login"},       // public action
		{"status", "GET /api/status"},     // public query
		{"status", "POST /no/such/route"}, // answered 404 without reading: net/http still drains the body
	} {
		t.Run(c.service+" "+c.route, func(t *testing.T) {
			addr := strings.TrimPrefix(h.URLs[c.service], "http://")
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			if _, err := io.WriteString(conn, c.route+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"em"); err != nil {
				t.Fatal(err)
			}
			// The bound plus slack; without a read timeout the server waits forever.
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode < 400 {
					t.Fatalf("a stalled body answered %d", resp.StatusCode)
				}
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the connection was still held after %s", time.Since(start))
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Fatalf("cut after %s, want about the 1s read timeout", d)
			}
		})
	}
}
