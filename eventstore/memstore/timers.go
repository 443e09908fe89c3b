package memstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// Timer states, as the PostgreSQL store names them.
const (
	TimerPending   = "pending"
	TimerFired     = "fired"
	TimerCancelled = "cancelled"
)

// Timer is one durable timer of a stream as the events left it. Seq rises
// with every schedule of the name, so a TimerRef to an older schedule is
// stale.
type Timer struct {
	StreamID string
	Name     string
	Kind     string
	At       time.Time
	Payload  json.RawMessage
	Seq      int64
	State    string
}

// Ref names the timer's current schedule, for a command that fires it
// (commands.FiresTimer).
func (t Timer) Ref() eventstore.TimerRef {
	return eventstore.TimerRef{StreamID: t.StreamID, Name: t.Name, Seq: t.Seq}
}

type timerKey struct{ streamID, name string }

// Timers are a stream's timers by name (copies).
func (s *Store) Timers(streamID string) map[string]Timer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]Timer{}
	for k, t := range s.timers {
		if k.streamID == streamID {
			out[k.name] = *t
		}
	}
	return out
}

// pendingTimer is the seq of the pending timer ref names, or
// eventstore.ErrTimerStale when it is not pending (any more).
func (s *Store) pendingTimer(ref eventstore.TimerRef) (int64, error) {
	t := s.timers[timerKey{ref.StreamID, ref.Name}]
	if t == nil || t.State != TimerPending || t.Seq != ref.Seq {
		return 0, eventstore.ErrTimerStale
	}
	return t.Seq, nil
}

func (s *Store) fire(ref *eventstore.TimerRef) {
	if ref == nil {
		return
	}
	if t := s.timers[timerKey{ref.StreamID, ref.Name}]; t != nil && t.Seq == ref.Seq && t.State == TimerPending {
		t.State = TimerFired
	}
}

// scheduled checks the events' timer changes and encodes their payloads,
// before anything is written.
func (s *Store) scheduled(cmd eventstore.Command, changes []event.Change) ([]Timer, error) {
	var out []Timer
	for _, c := range changes {
		for _, t := range c.Timers {
			if t.Name == "" {
				return nil, fmt.Errorf("timer of %s: a timer needs a name", c.Type)
			}
			if t.Cancel {
				out = append(out, Timer{StreamID: cmd.StreamID, Name: t.Name, State: TimerCancelled})
				continue
			}
			if t.Kind == "" || t.At.IsZero() {
				return nil, fmt.Errorf("timer %s of %s: a kind and a time are required", t.Name, c.Type)
			}
			payload, err := json.Marshal(t.Payload)
			if err != nil {
				return nil, fmt.Errorf("encode timer %s: %w", t.Name, err)
			}
			out = append(out, Timer{StreamID: cmd.StreamID, Name: t.Name, Kind: t.Kind, At: t.At.UTC(), Payload: payload, State: TimerPending})
		}
	}
	return out, nil
}

// schedule writes checked timer changes in event order: a schedule adds
// the timer or moves it (seq + 1, pending again); a cancel ends a pending
// one.
func (s *Store) schedule(cmd eventstore.Command, timers []Timer) {
	for _, t := range timers {
		k := timerKey{cmd.StreamID, t.Name}
		current := s.timers[k]
		if t.State == TimerCancelled {
			if current != nil && current.State == TimerPending {
				current.State = TimerCancelled
			}
			continue
		}
		t.Seq = 1
		if current != nil {
			t.Seq = current.Seq + 1
		}
		s.timers[k] = &t
	}
}
