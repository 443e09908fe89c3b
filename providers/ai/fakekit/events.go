package fakekit

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"
)

// Gate holds a stream's deltas after the first until a test lets them go.
type Gate struct {
	tokens chan struct{}
	open   chan struct{}
	closed atomic.Bool
	sent   atomic.Int64
}

// Release lets one more delta go.
func (g *Gate) Release() {
	select {
	case g.tokens <- struct{}{}:
	default:
	}
}

// Open lets every delta go, from now on.
func (g *Gate) Open() {
	if g.closed.CompareAndSwap(false, true) {
		close(g.open)
	}
}

// Sent counts the deltas written so far (all streams), a delta counting
// from the moment its write starts.
func (g *Gate) Sent() int { return int(g.sent.Load()) }

func (g *Gate) wait(done <-chan struct{}) bool {
	select {
	case <-g.tokens:
		return true
	case <-g.open:
		return true
	case <-done:
		return false
	}
}

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
	case f.Kind == KindCut && e.deltas >= f.After:
		panic(http.ErrAbortHandler) // drop the connection, no terminating chunk
	case f.Kind == KindEndEarly && e.deltas >= f.After:
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
		if gate != nil && !gate.wait(e.c.R.Context().Done()) {
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
	if delta {
		// Counted before the write: a client may hand the delta on before
		// the write call returns.
		if _, gate := e.c.kit.pacing(); gate != nil {
			gate.sent.Add(1)
		}
	}
	if f.Kind == KindMalformed {
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
