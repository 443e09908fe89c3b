package projections

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	lagEvents = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "platform_projection_lag_events",
		Help: "Events on the partition not yet applied by the projection generation.",
	}, []string{"projection", "generation", "topic", "partition"})
	lagSeconds = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "platform_projection_lag_seconds",
		Help: "Age of the last applied event while events are waiting; 0 when caught up.",
	}, []string{"projection", "generation", "topic", "partition"})
	eventsApplied = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_projection_events_applied_total", Help: "Events applied to read models.",
	}, []string{"projection"})
	batchesApplied = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_projection_batches_total", Help: "Committed projection transactions.",
	}, []string{"projection"})
	duplicatesDropped = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_projection_duplicates_dropped_total", Help: "Redelivered events that changed nothing.",
	}, []string{"projection"})
	eventsParked = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_projection_events_parked_total", Help: "Events recorded in proj_failures (and sent to the dead-letter topic) instead of applied.",
	}, []string{"projection"})
	batchWaits = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_projection_batch_waits_total", Help: "Tries of a batch held up by an outage or a stream hole (waited out, never parked).",
	}, []string{"projection"})
	streamGaps = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_projection_stream_gaps_total", Help: "Holes in a stream the event store could not fill: the partition stops there until it can.",
	}, []string{"projection"})
	gapsFilled = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_projection_gap_events_filled_total", Help: "Events read from the event store to fill a hole in a stream on the log.",
	}, []string{"projection"})
	outOfOrder = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_projection_out_of_order_total", Help: "Events at or below a stream's applied version that are not the event recorded there (reported in proj_failures).",
	}, []string{"projection"})
	groupFallbacks = promauto.NewCounter(prometheus.CounterOpts{
		Name: "platform_projection_shared_batch_fallbacks_total", Help: "Batches the live projections' shared transaction could not apply, applied again projection by projection.",
	})
)

func observeLag(labels []string, highWater, next int64, lastApplied time.Time) {
	lag := highWater - next
	if lag < 0 || next < 0 {
		lag = 0
	}
	lagEvents.WithLabelValues(labels...).Set(float64(lag))
	secs := 0.0
	if lag > 0 && !lastApplied.IsZero() {
		secs = time.Since(lastApplied).Seconds()
	}
	lagSeconds.WithLabelValues(labels...).Set(secs)
}
