package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
)

// isCall tells the gateway's call actions: the metered ones, which a spend
// cap can refuse (every call action declares 402; nothing else does).
func isCall(a httpapi.Action) bool { return slices.Contains(a.Problems, http.StatusPaymentRequired) }

// idempotent makes a call action honour Idempotency-Key as every command
// does: the key is claimed before the call (gatewaycmd.Answers), a repeat
// of the same request answers the first 2xx answer again (its body, or its
// stream's events in the same SSE format) with no provider call and no
// usage event, 409 request_in_progress while the first runs, 422
// idempotency_key_reused for another request under the key. A call that
// fails frees the key. A call under a key runs to its end when its client
// leaves (bounded by the call and stream timeouts): its answer waits for
// the client's retry instead of being paid for twice.
func idempotent(answers *gatewaycmd.Answers, a httpapi.Action) httpapi.Action {
	inner := a.Handle
	a.Handle = func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
		if c.Meta.IdempotencyKey == "" {
			return inner(ctx, c)
		}
		claim, stored, err := answers.Claim(ctx, c.Meta.OrganizationID, c.Meta.IdempotencyKey, c.Meta.RequestHash)
		if err != nil {
			return httpapi.Reply{}, err
		}
		if stored != nil {
			return replay(*stored)
		}
		ctx = context.WithoutCancel(ctx)
		reply, err := inner(ctx, c)
		if err != nil {
			claim.Release(ctx)
			return reply, err
		}
		if reply.Stream != nil {
			reply.Stream = recorded(claim, reply.Stream)
			return reply, nil
		}
		// The answer is written from the bytes kept, so a replay is the
		// same bytes.
		body, err := json.Marshal(reply.Body)
		if err != nil {
			claim.Release(ctx)
			return httpapi.Reply{}, err
		}
		kept := gatewaycmd.Answer{Body: body}
		if reply.Position != nil {
			kept.Position = reply.Position.String()
		}
		claim.Keep(ctx, kept)
		reply.Body = json.RawMessage(body)
		return reply, nil
	}
	return a
}

// recorded runs a streamed answer to its end, whether or not its client
// stays, and keeps its events once it ended cleanly ([DONE] written); a
// stream that failed frees the key.
func recorded(claim *gatewaycmd.Claim, stream httpapi.EventStream) httpapi.EventStream {
	return func(ctx context.Context, w *httpapi.EventWriter) error {
		ctx = context.WithoutCancel(ctx)
		var events []gatewaycmd.AnswerEvent
		w.Outlive(func(name, data string) { events = append(events, gatewaycmd.AnswerEvent{Name: name, Data: data}) })
		if err := stream(ctx, w); err != nil {
			claim.Release(ctx)
			return err
		}
		claim.Keep(ctx, gatewaycmd.Answer{Events: events})
		return nil
	}
}

// replay answers a stored answer again, marked Idempotent-Replayed.
func replay(a gatewaycmd.Answer) (httpapi.Reply, error) {
	if len(a.Events) > 0 {
		return httpapi.Reply{Stream: func(_ context.Context, w *httpapi.EventWriter) error {
			w.Header().Set(httpapi.HeaderReplayed, "true")
			for _, e := range a.Events {
				if err := w.Raw(e.Name, e.Data); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	}
	reply := httpapi.Reply{Body: a.Body, Replayed: true}
	if a.Position != "" {
		pos, err := eventstore.ParsePosition(a.Position)
		if err != nil {
			return httpapi.Reply{}, err
		}
		reply.Position = &pos
	}
	return reply, nil
}
