package bench

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// BenchmarkIdlePlatform is what the whole platform costs doing nothing:
// every consumer (projections, reactors, job workers, the dispatcher) polls
// the broker, and the relay and the timers poll PostgreSQL. Every other
// benchmark pays it on the same two cores, so it is measured on its own.
func BenchmarkIdlePlatform(b *testing.B) {
	h := startPlatform(b, false)
	db := h.App.Pool.Config().ConnConfig.Database
	time.Sleep(5 * time.Second) // start-up: the groups join, the leaders settle
	for b.Loop() {
		before := sampleCPU(db)
		time.Sleep(10 * time.Second)
		u := before.to(sampleCPU(db))
		secs := u.wall.Seconds()
		b.ReportMetric(u.self/secs, "go-cores")
		b.ReportMetric(u.postgres/secs, "pg-cores")
		b.ReportMetric(u.kafka/secs, "kafka-cores")
		b.Logf("idle platform, %s: Go %.3f cores, PostgreSQL %.3f, Kafka %.3f; its consumer groups: %d",
			u.wall.Round(time.Millisecond), u.self/secs, u.postgres/secs, u.kafka/secs, consumerGroups(b, h.Config.Kafka.Topics.Prefix+"."))
	}
}

// consumerGroups counts the broker's live consumer groups whose names start
// with prefix.
func consumerGroups(b *testing.B, prefix string) int {
	admin, err := sarama.NewClusterAdmin(strings.Split(os.Getenv("KAFKA_BROKERS"), ","), sarama.NewConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	groups, err := admin.ListConsumerGroups()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for g := range groups {
		if strings.HasPrefix(g, prefix) {
			n++
		}
	}
	return n
}
