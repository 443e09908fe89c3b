// Package exchange is the one HTTP exchange a provider adapter makes, for
// every adapter family: the request sent within the adapter's own time
// bound, whether it was written whole (so a lost answer is told from a
// request that never left), the answer read whole up to a bound with the
// provider's request id, and an exchange that got no readable answer
// classified (the caller gave up first, the provider was too slow,
// unreachable, or the connection was lost). Each family turns a Failure
// into its own error, in its own words.
package exchange

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/platform/backend/providers/outcome"
)

// Exchange is how an adapter reaches its provider.
type Exchange struct {
	Client *http.Client // nil: a client of its own, never http.DefaultClient
	// Timeout bounds the whole exchange, answer included. When it passes
	// while the caller's context is still live, the provider was slow: a
	// ProviderFault with Timeout. Zero leaves only the caller's context.
	Timeout time.Duration
	// MaxAnswer bounds the answer's body; a longer one is a Failure
	// (TooLarge). Zero: 1 MiB.
	MaxAnswer int64
	// RequestIDHeaders name the provider's request id headers; the first
	// present wins.
	RequestIDHeaders []string
}

// Answer is what the provider said, its body read whole.
type Answer struct {
	Status    int
	Header    http.Header
	Body      []byte
	RequestID string
}

// Failure is an exchange that ended without a readable answer.
type Failure struct {
	Kind outcome.Kind // Canceled (the caller's context ended first) or ProviderFault
	// Timeout: the adapter's own bound passed (a ProviderFault the gateway
	// answers as 504 rather than 502).
	Timeout bool
	// Sent: the request was written whole, so the provider may have acted
	// on it (its answer was lost or is unreadable).
	Sent bool
	// TooLarge: the answer was longer than MaxAnswer (Answer holds its
	// status, header and request id; Sent is set).
	TooLarge bool
	Answer   *Answer // what came of the answer before it failed, nil when none did
	Err      error   // the cause: the caller's context error when Canceled
}

// ErrTimeout is the cancel cause of an adapter's own time bound, so that a
// bound of ours is told apart from the caller's deadline.
var ErrTimeout = errors.New("provider timed out")

// Do sends req (its context is the caller's) and reads the answer,
// whatever its status.
func (x Exchange) Do(req *http.Request) (*Answer, *Failure) {
	ctx := req.Context()
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if x.Timeout > 0 {
		t := time.AfterFunc(x.Timeout, func() { cancel(ErrTimeout) })
		defer t.Stop()
	}
	var sent atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			sent.Store(true)
		}
	}}
	client := x.Client
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(req.WithContext(httptrace.WithClientTrace(callCtx, trace)))
	if err != nil {
		return nil, Classify(ctx, callCtx, err, sent.Load())
	}
	defer resp.Body.Close()
	a := &Answer{Status: resp.StatusCode, Header: resp.Header, RequestID: RequestID(resp.Header, x.RequestIDHeaders)}
	limit := x.MaxAnswer
	if limit <= 0 {
		limit = 1 << 20
	}
	if a.Body, err = ReadBounded(resp.Body, limit); err != nil {
		f := Classify(ctx, callCtx, err, true)
		f.Answer = a
		return nil, f
	}
	if int64(len(a.Body)) > limit {
		return nil, &Failure{Kind: outcome.ProviderFault, Sent: true, TooLarge: true, Answer: a}
	}
	return a, nil
}

// ReadBounded reads r whole up to limit bytes and one more: a body longer
// than limit comes back longer than limit, for the caller to refuse.
func ReadBounded(r io.Reader, limit int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, limit+1))
}

// RequestID is the provider's request id: the first of names present in h.
func RequestID(h http.Header, names []string) string {
	for _, name := range names {
		if v := h.Get(name); v != "" {
			return v
		}
	}
	return ""
}

// Classify says how an exchange without an answer ended. ctx is the
// caller's context, callCtx the exchange's (ended with cause ErrTimeout by
// the adapter's own bound): the caller's end comes first unless our bound
// passed before it, and then nothing about the provider can be concluded.
// sent tells a request that never left from one whose answer was lost.
func Classify(ctx, callCtx context.Context, err error, sent bool) *Failure {
	own := errors.Is(context.Cause(callCtx), ErrTimeout)
	var netErr net.Error
	switch {
	case ctx.Err() != nil && !own:
		return &Failure{Kind: outcome.Canceled, Sent: sent, Err: context.Cause(ctx)}
	case own || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return &Failure{Kind: outcome.ProviderFault, Timeout: true, Sent: sent, Err: err}
	}
	return &Failure{Kind: outcome.ProviderFault, Sent: sent, Err: err}
}
