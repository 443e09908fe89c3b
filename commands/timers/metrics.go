package timers

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	fired = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_timers_fired_total", Help: "Timers whose command was applied (or found nothing left to do).",
	}, []string{"kind"})
	firedLate = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name: "platform_timers_fire_delay_seconds", Help: "How long after its due time a timer fired.",
		Buckets: []float64{0.1, 0.5, 1, 2, 5, 15, 60, 300, 3600},
	}, []string{"kind"})
	stale = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_timers_stale_total", Help: "Claimed timers that were moved, cancelled or fired meanwhile (not fired on that schedule).",
	}, []string{"kind"})
	retries = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_timers_retries_total", Help: "Fires that failed and are tried again (outages and other failures).",
	}, []string{"kind"})
	parked = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_timers_parked_total", Help: "Timers parked (state failed, reason in es_timers.last_error).",
	}, []string{"kind"})
	lag = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "platform_timers_lag_seconds", Help: "Age of the oldest due timer not yet fired; 0 when none is due.",
	})
)
