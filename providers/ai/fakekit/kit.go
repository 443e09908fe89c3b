package fakekit

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Protocol is what a fake tells the kit about its wire protocol.
type Protocol interface {
	// Authorized reports whether r carries the fake's key the protocol's way.
	Authorized(r *http.Request) bool
	// WriteError answers with the protocol's error body for status (and,
	// for 429, its way of saying when to retry). The body carries
	// SecretMarker so tests can prove clients never repeat upstream bodies.
	WriteError(w http.ResponseWriter, status int, retryAfter time.Duration)
}

// SecretMarker is in every error body a fake writes: a client that repeats
// upstream bodies in its error messages would leak it.
const SecretMarker = "upstream-body-echo-sk-live-do-not-leak"

// KeepRequests is how many requests the log keeps at least (it holds at
// most twice as many; benchmarks make many calls).
const KeepRequests = 1000

// Request is one recorded request.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
}

// JSON decodes the recorded body into a generic map.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Kit holds a fake's script, log, delay and gate. Its methods are safe for
// concurrent use.
type Kit struct {
	proto Protocol

	mu       sync.Mutex
	queue    []Fault
	always   Fault
	requests []Request
	delay    time.Duration
	gate     *Gate
}

// NewKit makes a kit for a protocol.
func NewKit(p Protocol) *Kit { return &Kit{proto: p} }

// Next scripts the next len(faults) calls, in order.
func (k *Kit) Next(faults ...Fault) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.queue = append(k.queue, faults...)
}

// Always sets what every call does once the scripted ones are used up.
func (k *Kit) Always(f Fault) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.always = f
}

// SetDelay waits d between the deltas of a stream (not before the first).
func (k *Kit) SetDelay(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.delay = d
}

// HoldDeltas installs a gate: from now on every delta after the first of a
// stream waits until the test releases it.
func (k *Kit) HoldDeltas() *Gate {
	g := &Gate{tokens: make(chan struct{}, 1<<12), open: make(chan struct{})}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gate = g
	return g
}

// Reset forgets script, log, delay and gate.
func (k *Kit) Reset() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.queue, k.always, k.requests, k.delay, k.gate = nil, Fault{}, nil, 0, nil
}

// Requests returns the log, oldest first.
func (k *Kit) Requests() []Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]Request(nil), k.requests...)
}

// Last returns the latest request (zero when none).
func (k *Kit) Last() Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.requests) == 0 {
		return Request{}
	}
	return k.requests[len(k.requests)-1]
}

func (k *Kit) take() Fault {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.queue) > 0 {
		f := k.queue[0]
		k.queue = k.queue[1:]
		return f
	}
	return k.always
}

func (k *Kit) record(r *http.Request, body []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.requests = append(k.requests, Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body})
	if len(k.requests) >= 2*KeepRequests { // trimmed in bulk: a benchmark's calls stay O(1)
		k.requests = append([]Request(nil), k.requests[len(k.requests)-KeepRequests:]...)
	}
}

func (k *Kit) pacing() (time.Duration, *Gate) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.delay, k.gate
}

// Begin records the request, checks its key, and applies the scripted
// fault when it needs no protocol knowledge (error status, 429, hang). It
// returns the call when the fake must answer it.
func (k *Kit) Begin(w http.ResponseWriter, r *http.Request) (*Call, bool) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	k.record(r, body)
	if !k.proto.Authorized(r) {
		k.proto.WriteError(w, http.StatusUnauthorized, 0)
		return nil, false
	}
	f := k.take()
	switch f.Kind {
	case KindStatus:
		k.proto.WriteError(w, f.Status, 0)
		return nil, false
	case KindRateLimit:
		k.proto.WriteError(w, http.StatusTooManyRequests, f.RetryAfter)
		return nil, false
	case KindHang:
		<-r.Context().Done()
		return nil, false
	}
	return &Call{Fault: f, Body: body, W: w, R: r, kit: k}, true
}

// Call is one request a fake answers.
type Call struct {
	Fault Fault
	Body  []byte
	W     http.ResponseWriter
	R     *http.Request
	kit   *Kit
}

// Decode reads the JSON body into v; on failure it answers 400 and
// returns false.
func (c *Call) Decode(v any) bool {
	if err := json.Unmarshal(c.Body, v); err != nil {
		c.kit.proto.WriteError(c.W, http.StatusBadRequest, 0)
		return false
	}
	return true
}

// Fail answers with the protocol's error for status (input the fake refuses).
func (c *Call) Fail(status int) { c.kit.proto.WriteError(c.W, status, 0) }

// JSON answers 200 with v, or with the scripted malformed or cut body.
func (c *Call) JSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.Fail(http.StatusInternalServerError)
		return
	}
	c.W.Header().Set("Content-Type", "application/json")
	switch c.Fault.Kind {
	case KindMalformed, KindEndEarly:
		c.W.WriteHeader(http.StatusOK)
		_, _ = c.W.Write(b[:len(b)/2])
		return
	case KindCut:
		c.W.Header().Set("Content-Length", itoa(len(b)))
		c.W.WriteHeader(http.StatusOK)
		_, _ = c.W.Write(b[:len(b)/2])
		if f, ok := c.W.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // net/http drops the connection without logging
	}
	c.W.WriteHeader(http.StatusOK)
	_, _ = c.W.Write(b)
}

// WantsUsage reports whether the answer should carry usage (KindNoUsage not scripted).
func (c *Call) WantsUsage() bool { return c.Fault.Kind != KindNoUsage }

func itoa(n int) string { return strconv.Itoa(n) }
