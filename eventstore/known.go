package eventstore

import (
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// knownStreams is what this process's store knows of the streams it wrote
// last: each one's history as a read would return it after that write (its
// snapshot and the events after it). A command on a known stream is decided
// on that history without reading it, and its transaction is one round trip
// (BEGIN, the locks, the appends and COMMIT together), as a new stream's is
// (Command.New): the read was a round trip of every flush and ~20 µs of
// PostgreSQL a command.
//
// Memory may be behind the database: another process (or a writer of this
// one that failed after its COMMIT was sent) may have appended since. That
// is safe because every use is checked before anyone is answered:
//   - a decision that appends takes the next version after the known head,
//     and the unique (stream_id, stream_version) of es_events refuses it if
//     the stream moved: the transaction rolls back and runs again the usual
//     way, read under the stream's lock;
//   - a decision that appends nothing (a refusal, a no-op, another tenant's
//     stream) is not answered from memory: the command runs again the usual
//     way, since nothing in the database would have refused a stale "no".
//
// A command with an idempotency key is decided without looking the key up
// either: its record's insert, in the same round trip after the key's lock,
// is refused by es_idempotency's primary key when the key was used (a
// retry, rare), and the transaction runs again the usual way, which answers
// the first result or idempotency_key_reused.
//
// A stream found moved is not kept for a while (contendedFor): two
// processes taking turns on one stream would otherwise each pay a refused
// round trip on every command. Commands with a timer or a Prepare do not
// use it (they read or lock in the transaction anyway); the history kept is
// bounded (maxKnownEvents, maxKnownStreams).
type knownStreams struct {
	mu        sync.Mutex
	streams   map[string]knownStream
	contended map[string]time.Time // stream -> until when it is not kept
}

// knownStream is a stream's history as read with a snapshot schema.
type knownStream struct {
	schema  int
	history []Event
}

const (
	// maxKnownStreams bounds the streams kept; a new one evicts one at random.
	maxKnownStreams = 4096
	// maxKnownEvents bounds a kept history: a stream without snapshots
	// grows, and past this it is read as before.
	maxKnownEvents = 32
	// contendedFor is how long a stream found moved by another writer is read.
	contendedFor = time.Minute
)

var knownStreamUses = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "platform_command_known_streams_total",
	Help: "Commands decided on a history this process kept instead of reading it (outcome hit), and those run again the usual way because the stream had moved or the decision appended nothing (outcome reread).",
}, []string{"outcome"})

func newKnownStreams() *knownStreams {
	return &knownStreams{streams: map[string]knownStream{}, contended: map[string]time.Time{}}
}

// usable: the command reads nothing but its stream (and its key's record)
// before deciding.
func usable(cmd Command) bool {
	return !cmd.New && cmd.Fires == nil && cmd.Prepare == nil
}

// history returns the kept history of the command's stream, read with the
// command's snapshot schema.
func (k *knownStreams) history(cmd Command) ([]Event, bool) {
	if !usable(cmd) {
		return nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.streams[cmd.StreamID]
	if !ok || s.schema != cmd.Snapshot.schema() {
		return nil, false
	}
	return slices.Clone(s.history), true // a decider may reslice or change its copy
}

// remember keeps a stream's history after a committed write, unless the
// stream is contended, the history is long, or a later one is kept.
func (k *knownStreams) remember(cmd Command, history []Event, now time.Time) {
	if !usable(cmd) || len(history) == 0 || len(history) > maxKnownEvents {
		k.forget(cmd.StreamID)
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if until, ok := k.contended[cmd.StreamID]; ok {
		if now.Before(until) {
			return
		}
		delete(k.contended, cmd.StreamID)
	}
	if s, ok := k.streams[cmd.StreamID]; ok && headVersion(s.history) > headVersion(history) {
		return // a later write's history is there already
	}
	if _, ok := k.streams[cmd.StreamID]; !ok && len(k.streams) >= maxKnownStreams {
		for id := range k.streams {
			delete(k.streams, id)
			break
		}
	}
	k.streams[cmd.StreamID] = knownStream{schema: cmd.Snapshot.schema(), history: slices.Clip(history)}
}

// forget drops streams whose database state is not known (an error hid
// whether a COMMIT happened, or the stream moved).
func (k *knownStreams) forget(streamIDs ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, id := range streamIDs {
		delete(k.streams, id)
	}
}

// moved records a stream found moved by another writer: forgotten, and not
// kept for contendedFor.
func (k *knownStreams) moved(streamID string, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.streams, streamID)
	if len(k.contended) >= maxKnownStreams {
		for id, until := range k.contended {
			if now.After(until) {
				delete(k.contended, id)
			}
		}
	}
	if len(k.contended) < maxKnownStreams {
		k.contended[streamID] = now.Add(contendedFor)
	}
}

// recordedAt is a time as a read of a timestamptz column returns it:
// microseconds (pgx truncates on the way in), in the local zone.
func recordedAt(t time.Time) time.Time { return time.UnixMicro(t.UnixMicro()) }
