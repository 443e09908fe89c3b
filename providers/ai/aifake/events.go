package aifake

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/platform/backend/providers/fakekit"
)

// Events writes a stream as Server-Sent Events, applying the call's
// scripted stream faults. Every write is flushed at once.
type Events struct {
	c      *Call
	f      http.Flusher
	deltas int
	ended  bool
}

// Events starts the SSE answer (200, text/event-stream).
func (c *Call) Events() *Events {
	c.W.Header().Set("Content-Type", "text/event-stream")
	c.W.Header().Set("Cache-Control", "no-cache")
	c.W.WriteHeader(http.StatusOK)
	f, _ := c.W.(http.Flusher)
	e := &Events{c: c, f: f}
	e.flush()
	return e
}

// Send writes one event (name may be empty) whose data is v as JSON, or v
// itself when v is a string. It returns false when the fake must stop
// writing: the scripted fault ended the stream, or the client went away.
func (e *Events) Send(name string, v any) bool { return e.write(name, v, false) }

// Delta writes one content event: paced by the delay and held by the gate.
func (e *Events) Delta(name string, v any) bool { return e.write(name, v, true) }

func (e *Events) write(name string, v any, delta bool) bool {
	if e.ended {
		return false
	}
	f := e.c.Fault
	switch {
	case f.Kind == fakekit.Cut && e.deltas >= f.After:
		panic(http.ErrAbortHandler) // drop the connection, no terminating chunk
	case f.Kind == EndEarly && e.deltas >= f.After:
		e.ended = true
		return false
	}
	if delta && e.deltas > 0 {
		delay, gate := e.c.kit.pacing()
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-e.c.R.Context().Done():
				t.Stop()
				return false
			}
		}
		if gate != nil && !gate.Wait(e.c.R.Context()) {
			return false
		}
	}
	var data []byte
	if s, ok := v.(string); ok {
		data = []byte(s)
	} else {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return false
		}
	}
	if delta && e.deltas == 0 {
		// Counted before the write (a client may hand the delta on before
		// the write call returns); the later deltas count as they pass the
		// gate.
		if _, gate := e.c.kit.pacing(); gate != nil {
			gate.Pass()
		}
	}
	if f.Kind == fakekit.Malformed {
		data = data[:len(data)/2] // framing intact, JSON broken
		e.ended = true
	}
	var b []byte
	if name != "" {
		b = append(b, "event: "+name+"\n"...)
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	if _, err := e.c.W.Write(b); err != nil {
		return false
	}
	e.flush()
	if delta {
		e.deltas++
	}
	return !e.ended
}

func (e *Events) flush() {
	if e.f != nil {
		e.f.Flush()
	}
}
