package jobs

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	claims = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_jobs_claims_total", Help: "Attempts claimed by this process's workers.",
	}, []string{"kind"})
	attempts = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_jobs_attempts_total", Help: "Attempts ended in this process, by what Do answered (succeeded, failed, unconfirmed, not_done).",
	}, []string{"kind", "outcome"})
	probes = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_jobs_probes_total", Help: "Probes of attempts with an unknown outcome, by answer (found, not_found, failed, later).",
	}, []string{"kind", "answer"})
	runningGauge = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "platform_jobs_running", Help: "Attempts running in this process.",
	}, []string{"kind"})
	held = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "platform_jobs_held", Help: "Queued jobs this process holds from the log, waiting for a runner of their kind.",
	}, []string{"context"})
)
