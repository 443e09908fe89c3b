package httpapi

import (
	"log/slog"
	"net/http"
)

// writeContent answers a Reply with Content: headers first, then whatever
// it writes. Content that fails before its first byte is answered as a
// problem like any error; once bytes went out the status cannot change any
// more, so the connection is aborted: a client must see a broken transfer,
// never a CSV export that silently ends early.
func writeContent(w http.ResponseWriter, r *http.Request, log *slog.Logger, status int, reply Reply) {
	sw := &startedWriter{w: w, status: status, contentType: reply.ContentType}
	if err := reply.Content(sw); err != nil {
		if !sw.started {
			WriteError(w, r, log, err)
			return
		}
		if !clientGone(r, err) {
			log.Error("answer failed after its first byte", "err", err, "request_id", RequestID(r.Context()), "path", r.URL.Path)
		}
		// net/http's sanctioned way to abort a response mid-body: the
		// connection is closed (or the HTTP/2 stream reset) without a clean
		// end, and the panic goes no further than the server.
		panic(http.ErrAbortHandler)
	}
	sw.start()
}

// startedWriter writes the status and content type with the first byte, so
// an error before any byte can still be a problem answer.
type startedWriter struct {
	w           http.ResponseWriter
	status      int
	contentType string
	started     bool
}

func (s *startedWriter) start() {
	if s.started {
		return
	}
	s.started = true
	if s.contentType != "" {
		s.w.Header().Set("Content-Type", s.contentType)
	}
	s.w.WriteHeader(s.status)
}

func (s *startedWriter) Write(p []byte) (int, error) {
	s.start()
	return s.w.Write(p)
}
