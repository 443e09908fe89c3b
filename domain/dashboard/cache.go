package dashboard

import "time"

// Seed 002, limits: the widget cache keeps a successful native payload 45
// seconds fresh, and serves it for five minutes to an app that fails.
const (
	FreshFor = 45 * time.Second
	StaleFor = 5 * time.Minute
)

// How an app's tile in an answer was obtained.
const (
	StateFresh    = "fresh"    // fetched for this answer
	StateCached   = "cached"   // a payload younger than FreshFor: no fetch
	StateStale    = "stale"    // the fetch failed: a payload younger than StaleFor
	StateFallback = "fallback" // the fetch failed, no stale payload: the catalog's overview
)

// States are every state, in order of freshness.
var States = []string{StateFresh, StateCached, StateStale, StateFallback}

// Cached reports whether a payload fetched at fetched may answer at now
// without a fetch: younger than FreshFor (at 45 s exactly it is fetched
// again).
func Cached(fetched, now time.Time) bool { return now.Sub(fetched) < FreshFor }

// Stale reports whether a payload fetched at fetched may stand in for a
// failed fetch at now: younger than StaleFor (at five minutes exactly the
// overview is shown instead).
func Stale(fetched, now time.Time) bool { return now.Sub(fetched) < StaleFor }

// AfterFetch is the state once a needed fetch ended: fresh when it worked,
// else stale when a payload younger than StaleFor exists, else fallback.
func AfterFetch(ok, hit bool, fetched, now time.Time) string {
	switch {
	case ok:
		return StateFresh
	case hit && Stale(fetched, now):
		return StateStale
	}
	return StateFallback
}
