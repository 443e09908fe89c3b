package status_test

import "time"

// t0 is the fixed "now" of every test; the domain never reads the clock.
// Histories and expected outcomes are domain/event/eventtest's.
var t0 = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

func ptr(s string) *string { return &s }
