package httpcall

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/sse"
	"github.com/platform/backend/providers/exchange"
)

// Stream is an open SSE answer. Next returns events as they arrive; each
// event re-arms the idle timeout.
type Stream struct {
	Meta Meta

	c       *Caller
	capab   ai.Capability
	ctx     context.Context
	callCtx context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer
	body    io.ReadCloser
	events  *sse.Reader
}

// Stream sends req and opens its event stream. The caller must Close it.
func (c *Caller) Stream(ctx context.Context, req Request) (*Stream, error) {
	callCtx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(c.timeout(), func() { cancel(exchange.ErrTimeout) })
	resp, meta, err := c.send(ctx, callCtx, req)
	if err != nil {
		timer.Stop()
		cancel(nil)
		return nil, err
	}
	if IsJSON(resp.Header.Get("Content-Type")) {
		resp.Body.Close()
		timer.Stop()
		cancel(nil)
		return nil, c.Fault(req.Capability, meta, ai.ReasonMalformed)
	}
	return &Stream{Meta: meta, c: c, capab: req.Capability, ctx: ctx, callCtx: callCtx, cancel: cancel,
		timer: timer, body: resp.Body, events: sse.NewReader(resp.Body, MaxEventBytes)}, nil
}

// Next returns the next event, io.EOF when the provider closed the stream
// cleanly (whether that end was complete is the protocol's to judge), or
// an *ai.Error: cut, provider timeout, caller canceled.
func (s *Stream) Next() (sse.Event, error) {
	ev, err := s.events.Next()
	switch {
	case err == nil:
		s.timer.Reset(s.c.timeout())
		return ev, nil
	case err == io.EOF:
		return sse.Event{}, io.EOF
	case errors.Is(err, sse.ErrEventTooLarge):
		return sse.Event{}, s.Fault("event too large")
	default:
		return sse.Event{}, s.c.transportError(s.ctx, s.callCtx, s.capab, s.Meta, err, true)
	}
}

// Fault is a provider fault on this stream (malformed event, cut, usage
// missing), carrying the request id.
func (s *Stream) Fault(reason string) *ai.Error {
	return s.c.Fault(s.capab, s.Meta, reason)
}

// Cut is the error for a stream that ended before its terminator. When the
// caller's context ended meanwhile, that is the caller's doing, not a cut.
func (s *Stream) Cut() *ai.Error {
	if s.ctx.Err() != nil {
		return s.c.transportError(s.ctx, s.callCtx, s.capab, s.Meta, s.ctx.Err(), true)
	}
	return s.Fault(ai.ReasonStreamCut)
}

// Close releases the connection (early, when the caller stopped).
func (s *Stream) Close() {
	s.timer.Stop()
	s.cancel(nil)
	s.body.Close()
}
