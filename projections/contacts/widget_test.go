package contacts

import (
	"testing"
	"time"
)

// TestWeekStart: a week starts on Monday at 00:00 UTC (ISO 8601), whatever
// the time zone of the clock.
func TestWeekStart(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	for in, want := range map[time.Time]string{
		time.Date(2026, 11, 25, 15, 4, 0, 0, time.UTC):  "2026-11-23T00:00:00Z", // Wednesday
		time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC):   "2026-11-23T00:00:00Z", // Monday, midnight
		time.Date(2026, 11, 29, 23, 59, 0, 0, time.UTC): "2026-11-23T00:00:00Z", // Sunday night
		time.Date(2026, 11, 30, 0, 30, 0, 0, berlin):    "2026-11-23T00:00:00Z", // Monday in Berlin, Sunday in UTC
	} {
		if got := WeekStart(in).Format(time.RFC3339); got != want {
			t.Errorf("WeekStart(%s) = %s, want %s", in, got, want)
		}
	}
}
