package apptest

import (
	"bytes"
	"sync"
)

// LogSink keeps every line a platform logs (Options.LogTo: debug level),
// for tests that scan the log for what must never be in it (a secret).
type LogSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *LogSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String is everything logged so far.
func (l *LogSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
