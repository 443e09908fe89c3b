package probe_test

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/probe"
	"github.com/platform/backend/internal/testenv"
)

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestReadiness: ready while the database and the broker answer; 503 not
// ready, naming the one that does not, while either is down.
func TestReadiness(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testenv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	kafka := eventstore.KafkaConfig{Brokers: testenv.KafkaBrokers(t)}
	deadPool, err := pgxpool.New(ctx, "postgres://postgres@"+closedPort(t)+"/x?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer deadPool.Close()
	deadKafka := eventstore.KafkaConfig{Brokers: []string{closedPort(t)}}
	for _, c := range []struct {
		name   string
		check  *probe.Checker
		status int
		down   string
	}{
		{"both answer", &probe.Checker{Service: "s", Pool: pool, Kafka: &kafka}, http.StatusOK, ""},
		{"database down", &probe.Checker{Service: "s", Pool: deadPool, Kafka: &kafka, Timeout: time.Second}, http.StatusServiceUnavailable, "postgresql"},
		{"broker down", &probe.Checker{Service: "s", Pool: pool, Kafka: &deadKafka, Timeout: time.Second}, http.StatusServiceUnavailable, "kafka"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := c.check.Ready(ctx)
			r := body.(probe.Readiness)
			if status != c.status {
				t.Fatalf("status %d, want %d: %+v", status, c.status, r)
			}
			for name, ch := range r.Checks {
				if failing := ch.Status != "ok"; failing != (name == c.down) {
					t.Errorf("%s: %+v", name, ch)
				}
			}
			if c.down != "" && (r.Status != "not_ready" || r.Checks[c.down].Error != "unreachable") {
				t.Errorf("readiness %+v", r)
			}
		})
	}
}
