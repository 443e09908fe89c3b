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
		Name: "platform_projection_events_parked_total", Help: "Events sent to the dead-letter topic.",
	}, []string{"projection"})
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
