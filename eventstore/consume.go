package eventstore

import (
	"context"
	"time"

	"github.com/IBM/sarama"
)

// BatchReader reads one claimed partition in batches, for every consumer of
// the log that works a batch at a time (projection runners, reactors):
// batches grow with load, and an idle partition's lone record goes at once.
type BatchReader struct {
	Claim sarama.ConsumerGroupClaim
	Size  int // records per batch at most
	// Linger is how long a batch that shows load (more than one record
	// already fetched) waits to fill up; 0: never.
	Linger time.Duration
	// Idle runs every second while no record comes (lag metrics).
	Idle func()

	buf []*sarama.ConsumerMessage
}

// Next waits for the next record, adds what is already fetched (up to Size)
// and lingers when Linger says so. It returns nil when ctx or the claim
// ends. The batch is reused by the following call.
func (b *BatchReader) Next(ctx context.Context) []*sarama.ConsumerMessage {
	idle := time.NewTicker(time.Second)
	defer idle.Stop()
	for b.buf = b.buf[:0]; len(b.buf) == 0; {
		select {
		case <-ctx.Done():
			return nil
		case <-idle.C:
			if b.Idle != nil {
				b.Idle()
			}
		case msg, ok := <-b.Claim.Messages():
			if !ok {
				return nil
			}
			b.buf = append(b.buf, msg)
		}
	}
drain:
	for len(b.buf) < b.Size {
		select {
		case msg, ok := <-b.Claim.Messages():
			if !ok {
				break drain
			}
			b.buf = append(b.buf, msg)
		default:
			break drain
		}
	}
	if len(b.buf) > 1 && len(b.buf) < b.Size && b.Linger > 0 {
		b.linger(ctx)
	}
	return b.buf
}

func (b *BatchReader) linger(ctx context.Context) {
	timer := time.NewTimer(b.Linger)
	defer timer.Stop()
	for len(b.buf) < b.Size {
		select {
		case msg, ok := <-b.Claim.Messages():
			if !ok {
				return
			}
			b.buf = append(b.buf, msg)
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
