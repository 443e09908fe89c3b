// Package fakekit is what every AI protocol fake shares: scripted faults a
// test selects per call or for the next N calls, a log of every request,
// SSE writing with a delay between deltas and a gate (so a test can prove a
// client handed delta 1 on before the fake sent delta 2), and deterministic
// answers derived from the input (so metering tests can predict units).
//
// Fakes are zero-latency unless a test sets a delay: benchmarks use them.
package fakekit

import "time"

// FaultKind is what a fake does with one call.
type FaultKind int

const (
	KindOK        FaultKind = iota // answer normally
	KindStatus                     // answer with an HTTP error status and the protocol's error body
	KindRateLimit                  // 429 with the protocol's way of saying when to retry
	KindHang                       // answer nothing until the client gives up (its request context ends)
	KindMalformed                  // 200 with a body (or first event) that does not decode
	KindCut                        // drop the connection after After deltas of a stream (a whole answer: mid-body)
	KindEndEarly                   // end a stream cleanly after After deltas, without its terminator
	KindNoUsage                    // answer completely but without the usage the protocol normally sends
)

// Fault is one scripted behavior.
type Fault struct {
	Kind       FaultKind
	Status     int           // KindStatus
	RetryAfter time.Duration // KindRateLimit
	After      int           // KindCut, KindEndEarly: deltas sent before
}

// OK answers normally.
func OK() Fault { return Fault{Kind: KindOK} }

// Status answers with an HTTP error status (400, 401, 404, 500, 503 ...).
func Status(code int) Fault { return Fault{Kind: KindStatus, Status: code} }

// RateLimit answers 429, asking to retry after d.
func RateLimit(d time.Duration) Fault { return Fault{Kind: KindRateLimit, RetryAfter: d} }

// Hang never answers; the call ends when the client's context does.
func Hang() Fault { return Fault{Kind: KindHang} }

// Malformed answers 200 with a body that does not decode.
func Malformed() Fault { return Fault{Kind: KindMalformed} }

// Cut drops the connection once n deltas of a stream are out (a whole
// answer is dropped halfway through its body).
func Cut(n int) Fault { return Fault{Kind: KindCut, After: n} }

// EndEarly closes a stream cleanly once n deltas are out, without the
// protocol's terminator (a proxy that closed the connection politely).
func EndEarly(n int) Fault { return Fault{Kind: KindEndEarly, After: n} }

// NoUsage answers without the usage the protocol normally sends.
func NoUsage() Fault { return Fault{Kind: KindNoUsage} }
