package aifake

import (
	"net/http"
	"testing"
)

// Server is what each AI fake is built on: its kit, its routes, and its
// base URL once started. It records every call, served or mounted.
type Server struct {
	*Kit
	URL string // the adapter's base URL, once Start ran

	mux     *http.ServeMux
	handler http.Handler
}

var _ http.Handler = (*Server)(nil)

// NewServer makes a fake's server speaking p. stamp, when set, marks every
// answer's headers (the protocol's request id).
func NewServer(p Protocol, stamp func(http.Header)) *Server {
	s := &Server{Kit: NewKit(p), mux: http.NewServeMux()}
	s.handler = s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stamp != nil {
			stamp(w.Header())
		}
		s.mux.ServeHTTP(w, r)
	}))
	return s
}

// HandleFunc routes pattern to h.
func (s *Server) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	s.mux.HandleFunc(pattern, h)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Start serves the fake on 127.0.0.1 until the test ends; URL is its
// address and path.
func (s *Server) Start(tb testing.TB, path string) {
	tb.Helper()
	s.URL = s.Serve(s.handler) + path
	tb.Cleanup(s.Close)
}
