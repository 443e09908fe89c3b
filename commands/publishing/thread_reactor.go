package publishing

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/platform/backend/commands/reactor"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/eventstore"
)

// ThreadReactor is the name of the reactor that continues threads.
const ThreadReactor = "publishing.threads"

// Threads continues a thread: when a target's item n is published with its
// platform post id and items remain, it claims and sends item n+1 as a
// reply to it. A failure stops the chain there (no published event); a
// retry resumes at the failed item. The claim's idempotency key is the
// event's and the domain claims an item once, so redelivery, a replay of
// the reactor's group or two processes never send an item twice.
type Threads struct{ p *Publisher }

var _ reactor.Reactor = Threads{}

// Threads returns the reactor.
func (p *Publisher) Threads() Threads { return Threads{p: p} }

func (Threads) Name() string       { return ThreadReactor }
func (Threads) Contexts() []string { return []string{"publishing"} }
func (Threads) Types() []string    { return []string{domain.TargetPublished} }

func (t Threads) React(ctx context.Context, e eventstore.Event) error {
	var p domain.PostEvent
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		return fmt.Errorf("decode %s: %w", e.Type, err)
	}
	if p.Done || p.Item == nil {
		return nil
	}
	return t.p.ContinueThread(ctx, reactor.Meta(ThreadReactor, e, "next"), p.PostID, p.TargetID, *p.Item+1)
}
