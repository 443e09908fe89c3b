package fakeprovider

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Request is one recorded call, whatever its outcome.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	// Status is what the fake answered; 0 while the call hangs, or when it
	// ended without an answer.
	Status int
}

// Server is the part every fake shares: embed it; Start records every
// call around the protocol's handler.
type Server struct {
	Script

	srv     *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu    sync.Mutex
	reqs  []Request
	count int
}

// Start serves h on 127.0.0.1 until Close. Each call is recorded as it
// arrives (its body read, bounded, and handed on to h) and its status
// filled in when h returns.
func Start(h http.Handler) *Server {
	s := &Server{closing: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		i := s.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		s.mu.Lock()
		s.reqs[i].Status = sw.status
		s.mu.Unlock()
	}))
	return s
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (Hang).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	return len(s.reqs) - 1
}

// URL is the fake's base URL: an adapter's Config.BaseURL.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the fake; hanging calls end.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closing) })
	s.srv.Close()
}

// Requests lists every call so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// NextSeq is 1, 2, 3, ... for deterministic message ids.
func (s *Server) NextSeq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	return s.count
}

// Hang blocks until the request's context ends or the fake closes; then
// the connection is dropped, so the client never reads an answer (an
// implicit empty 200 would look like a malformed success).
func (s *Server) Hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.closing:
	}
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// PostWebhook POSTs a webhook body with its headers to url, as the
// provider would, and returns the receiver's status.
func PostWebhook(ctx context.Context, url string, header http.Header, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}
