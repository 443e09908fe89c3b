package gateway

import (
	"time"

	"github.com/platform/backend/domain/event"
)

// StreamExpiryScan is the daily scan for connections whose token enters
// the expiry window: one platform-wide stream whose events carry the timer
// of the next scan, so the scan runs once a day in the whole deployment,
// late after downtime rather than never, and its runs are in the log.
const StreamExpiryScan = "gateway.expiry_scan"

// ExpiryScanStreamID is the scan's one stream.
const ExpiryScanStreamID = "gateway-expiry-scan"

// Expiry scan event types.
const (
	ExpiryScanScheduled = "gateway.expiry_scan.scheduled"
	ExpiryScanCompleted = "gateway.expiry_scan.completed"
)

// ExpiryScanEventTypes are the expiry scan's event types.
var ExpiryScanEventTypes = []string{ExpiryScanScheduled, ExpiryScanCompleted}

// TimerKindExpiryScan fires the scan (timer "scan" on its stream).
const TimerKindExpiryScan = "gateway.expiry_scan"

// ExpiryScanV1 is a scan scheduled or run: how many connections it warned
// and when the next one runs.
type ExpiryScanV1 struct {
	Warned int       `json:"warned"`
	NextAt time.Time `json:"next_at"`
	At     time.Time `json:"at"`
}

// ExpiryScan is the scan stream's write model.
type ExpiryScan struct{ Runs int }

// LoadExpiryScan folds the scan stream.
func LoadExpiryScan(history []event.Recorded) (*ExpiryScan, error) {
	return &ExpiryScan{Runs: len(history)}, nil
}

// Ensure schedules the first scan once, at next.
func (s *ExpiryScan) Ensure(next, now time.Time) []event.Change {
	if s.Runs > 0 {
		return nil
	}
	return []event.Change{scan(ExpiryScanScheduled, 0, next, now)}
}

// Completed records a run and schedules the next one.
func (s *ExpiryScan) Completed(warned int, next, now time.Time) []event.Change {
	return []event.Change{scan(ExpiryScanCompleted, warned, next, now)}
}

func scan(typ string, warned int, next, now time.Time) event.Change {
	c := event.New(typ, ExpiryScanV1{Warned: warned, NextAt: next, At: now})
	c.Timers = []event.Timer{event.ScheduleTimer("scan", TimerKindExpiryScan, next, nil)}
	return c
}
