package socialtest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// Recorded is one real-shaped answer of a network, kept in testdata.
type Recorded struct {
	Status int
	Header map[string]string
	File   string // body, relative to the test's testdata directory
}

// Replay serves recorded answers by "METHOD /path" (the query is ignored)
// until the test ends, and answers the base URL. A route it does not know
// is a test failure.
func Replay(t *testing.T, routes map[string]Recorded) string {
	t.Helper()
	bodies := map[string][]byte{}
	for route, rec := range routes {
		b, err := os.ReadFile(filepath.Join("testdata", rec.File))
		if err != nil {
			t.Fatal(err)
		}
		bodies[route] = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := r.Method + " " + r.URL.Path
		rec, ok := routes[route]
		if !ok {
			t.Errorf("replay: no recorded answer for %s", route)
			http.NotFound(w, r)
			return
		}
		for k, v := range rec.Header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(rec.Status)
		_, _ = w.Write(bodies[route])
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
