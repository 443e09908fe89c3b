package eventstore

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/domain/event"
)

// TimerRef names one schedule of a timer: the stream that owns it, its name,
// and the seq its row had when the scheduler claimed it. Every schedule of
// the same name raises seq, so a ref goes stale when the timer is moved.
type TimerRef struct {
	StreamID string
	Name     string
	Seq      int64
}

// ErrTimerStale is what Execute answers for a command that fires a timer
// (Command.Fires) which was moved, cancelled or fired meanwhile: nothing was
// appended, and the timer is not to be fired on that schedule.
var ErrTimerStale = errors.New("eventstore: the timer was moved, cancelled or fired meanwhile")

// queueTimerCheck reads, and locks until the command commits, the pending
// row of the timer a command fires. It rides in the first round trip, after
// the stream lock.
func queueTimerCheck(b *pgx.Batch, ref *TimerRef) {
	if ref == nil {
		return
	}
	b.Queue(`SELECT seq FROM es_timers WHERE stream_id=$1 AND name=$2 AND state='pending' FOR UPDATE`, ref.StreamID, ref.Name)
}

// readTimerCheck fails with ErrTimerStale unless the timer is still pending
// on the schedule the ref names.
func readTimerCheck(br pgx.BatchResults, ref *TimerRef) error {
	if ref == nil {
		return nil
	}
	var seq int64
	err := br.QueryRow().Scan(&seq)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return ErrTimerStale
	case err != nil:
		return err
	case seq != ref.Seq:
		return ErrTimerStale
	}
	return nil
}

// queueTimerFired marks the fired timer in the command's transaction, so the
// command and the mark commit together: a crash cannot leave one without
// the other. It is queued before the decision's own timer changes, so a
// command that schedules the same name again leaves a new pending timer.
func queueTimerFired(b *pgx.Batch, ref *TimerRef) {
	if ref == nil {
		return
	}
	b.Queue(`UPDATE es_timers SET state='fired', fired_at=now(), updated_at=now(), leased_until=NULL, last_error=NULL
		WHERE stream_id=$1 AND name=$2 AND seq=$3 AND state='pending'`, ref.StreamID, ref.Name, ref.Seq)
}

// queueTimers writes the events' timer changes on the command's stream, in
// event order: a schedule inserts the timer or moves it (seq + 1, pending
// again, tries reset); a cancel turns a pending or parked timer cancelled.
func queueTimers(b *pgx.Batch, cmd Command, changes []event.Change) error {
	for _, c := range changes {
		for _, t := range c.Timers {
			if t.Name == "" {
				return fmt.Errorf("timer of %s: a timer needs a name", c.Type)
			}
			if t.Cancel {
				b.Queue(`UPDATE es_timers SET state='cancelled', updated_at=now(), leased_until=NULL
					WHERE stream_id=$1 AND name=$2 AND state IN ('pending', 'failed')`, cmd.StreamID, t.Name)
				continue
			}
			if t.Kind == "" || t.At.IsZero() {
				return fmt.Errorf("timer %s of %s: a kind and a time are required", t.Name, c.Type)
			}
			payload, err := json.Marshal(t.Payload)
			if err != nil {
				return fmt.Errorf("encode timer %s: %w", t.Name, err)
			}
			b.Queue(`INSERT INTO es_timers (stream_id, name, organization_id, kind, due_at, payload)
				VALUES ($1,$2,$3,$4,$5,$6)
				ON CONFLICT (stream_id, name) DO UPDATE SET kind=EXCLUDED.kind, due_at=EXCLUDED.due_at, payload=EXCLUDED.payload,
					organization_id=EXCLUDED.organization_id, seq=es_timers.seq+1, state='pending', tries=0, failures=0,
					leased_until=NULL, last_error=NULL, fired_at=NULL, updated_at=now()`,
				cmd.StreamID, t.Name, cmd.OrganizationID, t.Kind, t.At.UTC(), payload)
		}
	}
	return nil
}
