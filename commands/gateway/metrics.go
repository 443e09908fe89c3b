package gateway

import (
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/providers/ai"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// The gateway's operator metrics (ops/grafana, ops/prometheus): calls and
// spend as settled (each usage event once: counted when its settle
// appended), provider attempts that count for health, health transitions,
// and the warnings of expiring or undecryptable credentials. Labels are
// providers, operations and outcomes, never an organization.
var (
	callsSettled = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_gateway_calls_total",
		Help: "Metered provider calls by provider, operation and outcome (one per usage event).",
	}, []string{"provider", "operation", "outcome"})
	spendSettled = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_gateway_spend_microcents_total",
		Help: "What metered calls cost (micro-cents, 1e-6 cent) by provider and operation, as charged against the caps.",
	}, []string{"provider", "operation"})
	providerAttempts = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_gateway_provider_attempts_total",
		Help: "Provider attempts that count for its health, by provider and result (ok, failed: a failure the provider caused).",
	}, []string{"provider", "result"})
	providerTransitions = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_gateway_provider_transitions_total",
		Help: "Provider health transitions of an organization's provider, by provider and the state reached (degraded, healthy).",
	}, []string{"provider", "state"})
	heldSettles = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_gateway_held_settles_total",
		Help: "Settles of answered calls the database could not take, by where they were kept when the answer went out: log (the settle log, durable), memory (the broker out too: lost if the process dies).",
	}, []string{"kept"})
	credentialWarnings = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_gateway_credential_warnings_total",
		Help: "Credentials that need a person: a connection's token expiring within 7 days (expiring), a credential the key ring cannot open (undecryptable).",
	}, []string{"kind"})
)

// At 0 from the start, for alerts over a window: the warnings, and the
// health transitions of every AI provider.
func init() {
	for _, kept := range []string{"log", "memory"} {
		heldSettles.WithLabelValues(kept)
	}
	for _, kind := range []string{"expiring", "undecryptable"} {
		credentialWarnings.WithLabelValues(kind)
	}
	for _, p := range ai.Providers() {
		for _, state := range []string{domain.HealthDegraded, domain.HealthHealthy} {
			providerTransitions.WithLabelValues(string(p.ID), state)
		}
	}
}
