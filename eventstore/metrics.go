package eventstore

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var relayPublished = promauto.NewCounter(prometheus.CounterOpts{
	Name: "platform_relay_published_events_total",
	Help: "Outbox events published to Kafka by the relay (re-sends after a crash included).",
})
