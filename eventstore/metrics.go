package eventstore

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var relayPublished = promauto.NewCounter(prometheus.CounterOpts{
	Name: "platform_relay_published_events_total",
	Help: "Outbox events published to Kafka by the relay (re-sends after a crash included).",
})

var relaySendFailures = promauto.NewCounter(prometheus.CounterOpts{
	Name: "platform_relay_send_failures_total",
	Help: "Relay sends that the broker did not fully acknowledge; the rows after the first failed one are sent again.",
})
