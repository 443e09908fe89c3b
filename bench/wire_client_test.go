package bench

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// The benchmarks' load generator reads what net/http's server writes: a
// body by Content-Length and chunked, a refused status, an answer that
// closes the connection, and it sends the method, path, token and body.
func TestWireClientSpeaksHTTP11(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/length":
			io.WriteString(w, "fixed") //nolint:errcheck
		case "/chunked":
			for _, part := range []string{"one ", "two ", "three"} {
				io.WriteString(w, part) //nolint:errcheck
				w.(http.Flusher).Flush()
			}
		case "/echo":
			body, _ := io.ReadAll(r.Body)
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, r.Method+" "+r.Header.Get("Content-Type")+" "+string(body)) //nolint:errcheck
		case "/close":
			w.Header().Set("Connection", "close")
			io.WriteString(w, "bye") //nolint:errcheck
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		default:
			http.NotFound(w, r)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := newWireClient(srv.URL, "tok", 4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, tc := range []struct {
		method, path string
		body         any
		want         int
		out          string
	}{
		{"GET", "/length", nil, 200, "fixed"},
		{"GET", "/chunked", nil, 200, "one two three"},
		{"PATCH", "/echo", map[string]string{"a": "b"}, 201, `PATCH application/json {"a":"b"}`},
		{"GET", "/empty", nil, 204, ""},
		{"GET", "/length", nil, 200, "fixed"},
	} {
		out, err := c.do(tc.method, tc.path, tc.body, tc.want)
		if err != nil || string(out) != tc.out {
			t.Fatalf("%s %s = %q, %v; want %q", tc.method, tc.path, out, err, tc.out)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for sequential requests, want 1 kept alive", n)
	}
	if _, err := c.do("GET", "/missing", nil, 200); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("a 404 when 200 was wanted: %v", err)
	}
	if out, err := c.do("GET", "/close", nil, 200); err != nil || string(out) != "bye" {
		t.Fatalf("GET /close = %q, %v", out, err)
	}
	if out, err := c.do("GET", "/length", nil, 200); err != nil || string(out) != "fixed" {
		t.Fatalf("after a closed connection: %q, %v", out, err)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want a second one after the server closed the first", n)
	}
	bad, _ := newWireClient(srv.URL, "wrong", 1)
	if _, err := bad.do("GET", "/length", nil, 200); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("the token is not sent: %v", err)
	}
}
