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
	// record, when set (Outlive), is handed every event, and a client that
	// left no longer fails the stream: gone drops the writes to it.
	record func(name, data string)
	gone   bool
}

// streamIdle bounds the time between two events of a stream.
const streamIdle = 2 * time.Minute

func newEventWriter(w http.ResponseWriter) *EventWriter {
	return &EventWriter{w: w, rc: http.NewResponseController(w), idle: streamIdle}
}

// Started reports whether the first event (and the headers) went out.
func (e *EventWriter) Started() bool { return e.started }

// Header is the answer's header, to set before the first event.
func (e *EventWriter) Header() http.Header { return e.w.Header() }

// Outlive hands every event from now on to record, and lets the answer go
// on to its end when the client leaves: writes to a client that is gone are
// dropped instead of failing the stream. For an answer kept for the
// client's retry (the gateway's calls with an Idempotency-Key).
func (e *EventWriter) Outlive(record func(name, data string)) { e.record = record }

// Raw writes one event whose data is already encoded (an answer recorded
// by Outlive, written again).
func (e *EventWriter) Raw(name, data string) error { return e.raw(name, data) }

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
	if e.record != nil {
		e.record(name, data)
		if e.gone {
			return nil
		}
	}
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
	if err == nil {
		err = e.rc.Flush()
	}
	if err != nil && e.record != nil {
		e.gone = true
		return nil
	}
	return err
}

// fail ends a started stream with an "error" event carrying the problem.
func (e *EventWriter) fail(r *http.Request, log *slog.Logger, err error) {
	status, p := problemFor(r, log, err, e.w.Header())
	problemsTotal.WithLabelValues(fmt.Sprint(status)).Inc()
	if d := dialectOf(r.Context()); d != nil {
		_ = e.Send(d.StreamEvent, d.Body(status, p))
		return
	}
	_ = e.Send("error", p)
}
