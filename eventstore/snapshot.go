package eventstore

// Snapshotting says that a stream type's write model is saved whole, so that
// a command on a long stream reads one row and the events after it instead
// of replaying everything (measured: 572 µs of decoding at 96 events).
// The decision supplies the state to save (Decision.Snapshot).
type Snapshotting struct {
	// Schema is the snapshot format's version (>= 1). Snapshots of another
	// schema are ignored: the stream is folded from its first event again.
	Schema int
}

func (s *Snapshotting) schema() int {
	if s == nil {
		return 0
	}
	return s.Schema
}

// headVersion is the stream version a history ends at.
func headVersion(history []Event) int64 {
	if len(history) == 0 {
		return 0
	}
	return history[len(history)-1].StreamVersion
}
