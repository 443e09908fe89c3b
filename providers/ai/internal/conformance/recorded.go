package conformance

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// Recorded serves a recorded answer (a testdata file) to every request, with
// the given status and headers, so an adapter is checked against the real
// API's shapes and not only against the fake written beside it. It returns
// the server's URL and a pointer to the last request's body.
func Recorded(t *testing.T, status int, header map[string]string, file string) (string, *[]byte) {
	t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var last []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last = readAll(r)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &last
}

func readAll(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}
