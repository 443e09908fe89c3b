package fakekit

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Serve runs h on a local HTTP server until the test ends and returns its URL.
func Serve(tb testing.TB, h http.Handler) string {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}
