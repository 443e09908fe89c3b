package fake

import (
	"sync"
	"time"
)

// FaultKind is what the fake does with a call instead of serving it.
type FaultKind string

const (
	// ServerError: 500, type api_error, Stripe-Should-Retry: true. Like
	// Stripe, a 500 is stored under the call's Idempotency-Key and replayed.
	ServerError FaultKind = "server_error"
	// RateLimit: 429, code rate_limit, with Retry-After (Fault.RetryAfter,
	// default 1s). Nothing is stored under the key.
	RateLimit FaultKind = "rate_limit"
	// Hang: no answer until the request's context ends (the client's
	// timeout or cancel) or the fake closes; then the connection is dropped.
	// The key stays in flight meanwhile, and is free again after.
	Hang FaultKind = "hang"
	// Malformed: 200 with a body that is not JSON. Nothing is stored.
	Malformed FaultKind = "malformed"
	// CardDeclined: 402, type card_error, code card_declined, decline code
	// Fault.DeclineCode (default generic_decline). Stored under the key.
	CardDeclined FaultKind = "card_declined"
	// Hold: the call waits at Fault.Gate, its Idempotency-Key in flight,
	// until the test releases the gate; then it is served normally. A test
	// waits for Gate.Entered to know the call is provably in flight.
	Hold FaultKind = "hold"
)

// Fault is one scripted answer.
type Fault struct {
	Kind        FaultKind
	RetryAfter  time.Duration // RateLimit; whole seconds on the wire
	DeclineCode string        // CardDeclined
	Gate        *Gate         // Hold
}

// Gate holds a call (Fault Hold) until released.
type Gate struct {
	entered, released  chan struct{}
	enterOnce, relOnce sync.Once
}

// NewGate makes a closed gate.
func NewGate() *Gate {
	return &Gate{entered: make(chan struct{}), released: make(chan struct{})}
}

// Entered is closed once a call waits at the gate (its key registered in
// flight).
func (g *Gate) Entered() <-chan struct{} { return g.entered }

// Release lets the waiting call (and any later one) through.
func (g *Gate) Release() { g.relOnce.Do(func() { close(g.released) }) }

func (g *Gate) enter() { g.enterOnce.Do(func() { close(g.entered) }) }

// script is the queue of scripted faults; guarded by Server.mu.
type script struct {
	queue []Fault
}

// Next makes the next n calls (authenticated, to a served path) answer with
// f.
func (s *Server) Next(n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.script.queue = append(s.script.queue, f)
	}
}

// Then scripts the next calls one by one, in order; Fault{} serves a call
// normally.
func (s *Server) Then(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.queue = append(s.script.queue, faults...)
}

// ClearFaults forgets the faults not yet used.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.queue = nil
}

// takeFault pops the next scripted fault; caller holds s.mu.
func (s *Server) takeFault() Fault {
	if len(s.script.queue) == 0 {
		return Fault{}
	}
	f := s.script.queue[0]
	s.script.queue = s.script.queue[1:]
	return f
}

func (f Fault) retryAfterSeconds() int {
	if f.RetryAfter <= 0 {
		return 1
	}
	return int((f.RetryAfter + time.Second - 1) / time.Second)
}
