package eventstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/platform/backend/eventstore"
)

// fedClaim is a claimed partition fed by the test.
type fedClaim struct{ messages chan *sarama.ConsumerMessage }

func (fedClaim) Topic() string                              { return "t" }
func (fedClaim) Partition() int32                           { return 0 }
func (fedClaim) InitialOffset() int64                       { return 0 }
func (fedClaim) HighWaterMarkOffset() int64                 { return 0 }
func (c fedClaim) Messages() <-chan *sarama.ConsumerMessage { return c.messages }

// A reader's batches cost no allocation of their own (every consumer of
// the log reads every record of its topics: a reactor's batch of other
// types' records is a few hundred nanoseconds of work), and its idle
// callback still runs a second after the last record, batch after batch.
func TestBatchReaderReusesItsTicker(t *testing.T) {
	c := fedClaim{messages: make(chan *sarama.ConsumerMessage, 64)}
	var idle atomic.Int32
	r := &eventstore.BatchReader{Claim: c, Size: 16, Idle: func() { idle.Add(1) }}
	msgs := make([]*sarama.ConsumerMessage, 16)
	for i := range msgs {
		msgs[i] = &sarama.ConsumerMessage{Offset: int64(i)}
	}
	ctx := context.Background()
	next := func() {
		for _, m := range msgs {
			c.messages <- m
		}
		if b := r.Next(ctx); len(b) != len(msgs) {
			t.Fatalf("a batch of %d records, want %d", len(b), len(msgs))
		}
	}
	next()
	if n := testing.AllocsPerRun(100, next); n != 0 {
		t.Fatalf("%.1f allocations a batch", n)
	}
	if idle.Load() != 0 {
		t.Fatal("idle while records came")
	}
	// No record for a while: the idle callback runs about every second.
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		for idle.Load() < 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		c.messages <- msgs[0]
	}()
	start := time.Now()
	if b := r.Next(ctx); len(b) != 1 {
		t.Fatalf("a batch of %d records after the pause", len(b))
	}
	if took := time.Since(start); idle.Load() < 2 || took < 2*time.Second-100*time.Millisecond {
		t.Fatalf("idle ran %d times in %v", idle.Load(), took)
	}
	// And it counts from the last batch, not from an earlier tick.
	idle.Store(0)
	time.Sleep(1500 * time.Millisecond) // no Next running: the ticker of the last call is not read
	c.messages <- msgs[0]
	if b := r.Next(ctx); len(b) != 1 || idle.Load() != 0 {
		t.Fatalf("a batch of %d records; idle ran %d times for a record already there", len(b), idle.Load())
	}
}
