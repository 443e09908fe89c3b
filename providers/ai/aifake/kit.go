// Package aifake is what the AI protocol fakes share beyond fakekit
// (faults, records, gates, the server): the key check and error body a
// protocol tells its kit, SSE writing with a delay between deltas and a gate
// (so a test can prove a client handed delta 1 on before the fake sent delta
// 2), the AI faults (a stream ended early, an answer without usage), and
// deterministic answers derived from the input (so metering tests can
// predict units).
package aifake

import (
	"net/http"
	"sync"
	"time"

	"github.com/platform/backend/providers/fakekit"
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

// The faults only AI answers have, besides fakekit's (ServerError,
// Unauthorized, Reject and fakekit.Status(code) answer the protocol's error
// body for their status; RateLimit 429 with its retry headers; Hang;
// Malformed: a body, or a stream's first event, that does not decode; Cut:
// the connection dropped once Fault.After deltas are out, a whole answer
// half-way).
const (
	// EndEarly closes a stream cleanly once Fault.After deltas are out,
	// without the protocol's terminator (a proxy that closed the connection
	// politely); a whole answer is cut short.
	EndEarly fakekit.Kind = "end_early"
	// NoUsage answers completely but without the usage the protocol
	// normally sends.
	NoUsage fakekit.Kind = "no_usage"
)

// Kit is an AI fake's kit: fakekit's, with the protocol's key check and the
// pacing of streams. Safe for concurrent use.
type Kit struct {
	*fakekit.Kit
	proto Protocol

	mu    sync.Mutex
	delay time.Duration
	gate  *fakekit.Gate
}

// NewKit makes a kit for a protocol.
func NewKit(p Protocol) *Kit {
	return &Kit{Kit: fakekit.New(fakekit.Options{Protocol: sayer{p}}), proto: p}
}

// sayer answers the faults with a status with the protocol's error body.
type sayer struct{ p Protocol }

func (s sayer) Say(w http.ResponseWriter, _ *http.Request, _ string, f fakekit.Fault) bool {
	switch f.Kind {
	case fakekit.RateLimit:
		s.p.WriteError(w, http.StatusTooManyRequests, f.Wait())
	case fakekit.Unauthorized:
		s.p.WriteError(w, f.StatusOr(http.StatusUnauthorized), 0)
	case fakekit.ServerError:
		s.p.WriteError(w, f.StatusOr(http.StatusInternalServerError), 0)
	case fakekit.Reject:
		s.p.WriteError(w, f.StatusOr(http.StatusBadRequest), 0)
	default:
		return false // played on the answer
	}
	return true
}

// SetDelay waits d between the deltas of a stream (not before the first).
func (k *Kit) SetDelay(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.delay = d
}

// HoldDeltas installs a gate: from now on every delta after the first of a
// stream waits until the test releases it (Release: one more, Open: all);
// Passed counts the deltas written, each from the moment its write starts.
func (k *Kit) HoldDeltas() *fakekit.Gate {
	g := fakekit.NewGate()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gate = g
	return g
}

// Reset forgets the faults scripted, the delay and the gate.
func (k *Kit) Reset() {
	k.Kit.Reset()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.delay, k.gate = 0, nil
}

func (k *Kit) pacing() (time.Duration, *fakekit.Gate) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.delay, k.gate
}

// Begin checks the call's key, then takes and plays its scripted fault
// (fakekit.Kit.Begin). It answers the call when the fake must answer it.
func (k *Kit) Begin(w http.ResponseWriter, r *http.Request) (*Call, bool) {
	if !k.proto.Authorized(r) {
		k.proto.WriteError(w, http.StatusUnauthorized, 0)
		return nil, false
	}
	c, ok := k.Kit.Begin(w, r, "")
	if !ok {
		return nil, false
	}
	return &Call{Call: c, kit: k}, true
}

// Call is one request an AI fake answers.
type Call struct {
	*fakekit.Call
	kit *Kit
}

// JSON answers 200 with v, or with the scripted malformed, cut or
// ended-early body.
func (c *Call) JSON(v any) {
	if c.Fault.Kind == EndEarly {
		c.Fault.Kind = fakekit.Malformed // a whole answer ended early is a body cut short
	}
	c.Call.JSON(v)
}

// WantsUsage reports whether the answer should carry usage (NoUsage not
// scripted).
func (c *Call) WantsUsage() bool { return c.Fault.Kind != NoUsage }
