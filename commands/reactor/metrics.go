package reactor

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	lagEvents = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "platform_reactor_lag_events",
		Help: "Events on the partition not yet handled by the reactor.",
	}, []string{"reactor", "topic", "partition"})
	lagSeconds = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "platform_reactor_lag_seconds",
		Help: "Age of the last handled event while events are waiting; 0 when caught up.",
	}, []string{"reactor", "topic", "partition"})
	handled = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_reactor_events_handled_total", Help: "Events a reactor reacted to (redeliveries included).",
	}, []string{"reactor"})
	parked = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_reactor_events_parked_total", Help: "Events recorded in reactor_failures (and sent to the dead-letter topic) instead of handled.",
	}, []string{"reactor"})
	batches = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_reactor_batches_total", Help: "Batches of records a reactor read (each fetched, its types selected and passed over or handled).",
	}, []string{"reactor"})
	records = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_reactor_records_total", Help: "Records a reactor read, of its types or not.",
	}, []string{"reactor"})
	waitsTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_reactor_waits_total", Help: "Tries held up by an outage (waited out, never parked).",
	}, []string{"reactor"})
)

// lagGauges are a claimed partition's lag gauges, looked up once a claim rather
// than by their labels at every batch.
type lagGauges struct{ events, seconds prometheus.Gauge }

func lagOf(reactor, topic string, partition int32) lagGauges {
	labels := []string{reactor, topic, strconv.Itoa(int(partition))}
	return lagGauges{lagEvents.WithLabelValues(labels...), lagSeconds.WithLabelValues(labels...)}
}

// observe is the projections' lag, per reactor and partition.
func (l lagGauges) observe(highWater, next int64, lastHandled time.Time) {
	lag := highWater - next
	if lag < 0 || next < 0 {
		lag = 0
	}
	l.events.Set(float64(lag))
	secs := 0.0
	if lag > 0 && !lastHandled.IsZero() {
		secs = time.Since(lastHandled).Seconds()
	}
	l.seconds.Set(secs)
}
