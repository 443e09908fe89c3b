package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// EventStream is an answer written as server-sent events while it is
// produced (a streamed completion): the kernel calls it once the handler has
// returned, with a writer that sends the headers (200, text/event-stream)
// with the first event. An error before the first event is answered as a
// problem, like any handler's; one after it as a final "error" event whose
// data is the problem, so the client never mistakes a cut answer for a
// clean end.
type EventStream func(ctx context.Context, w *EventWriter) error

// EventWriter writes one answer's events, each flushed as it is written.
type EventWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	// idle extends the connection's write deadline at every event, so a
	// long stream is bounded by its silences, not by the listener's write
	// timeout.
	idle time.Duration
}

// streamIdle bounds the time between two events of a stream.
const streamIdle = 2 * time.Minute

func newEventWriter(w http.ResponseWriter) *EventWriter {
	return &EventWriter{w: w, rc: http.NewResponseController(w), idle: streamIdle}
}

// Started reports whether the first event (and the headers) went out.
func (e *EventWriter) Started() bool { return e.started }

// Send writes one event (name may be empty: a plain message) with data as
// JSON, and flushes it to the client.
func (e *EventWriter) Send(name string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return e.write(name, raw)
}

// Done writes the stream's terminator (data: [DONE], as OpenAI-style
// clients expect).
func (e *EventWriter) Done() error { return e.raw("", "[DONE]") }

func (e *EventWriter) write(name string, data []byte) error { return e.raw(name, string(data)) }

func (e *EventWriter) raw(name, data string) error {
	if !e.started {
		h := e.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no") // proxies must not buffer the stream
		e.w.WriteHeader(http.StatusOK)
		e.started = true
	}
	_ = e.rc.SetWriteDeadline(time.Now().Add(e.idle)) // not every writer supports deadlines
	var err error
	if name != "" {
		_, err = fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, data)
	} else {
		_, err = fmt.Fprintf(e.w, "data: %s\n\n", data)
	}
	if err != nil {
		return err
	}
	return e.rc.Flush()
}

// fail ends a started stream with an "error" event carrying the problem.
func (e *EventWriter) fail(r *http.Request, log *slog.Logger, err error) {
	status, p := problemFor(r, log, err, e.w.Header())
	problemsTotal.WithLabelValues(fmt.Sprint(status)).Inc()
	_ = e.Send("error", p)
}
