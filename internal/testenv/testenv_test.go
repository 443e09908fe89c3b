package testenv

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5"
)

func TestUniqueName(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9_]+$`)
	a, b := UniqueName("Orders.Events-v1"), UniqueName("Orders.Events-v1")
	if a == b {
		t.Fatalf("two calls gave the same name %q", a)
	}
	for _, n := range []string{a, b} {
		if !re.MatchString(n) || !strings.HasPrefix(n, "orders_events_v1_") {
			t.Errorf("UniqueName = %q, want orders_events_v1_<[a-z0-9]+>", n)
		}
	}
}

func TestWithDatabase(t *testing.T) {
	got, err := withDatabase("postgres://postgres@127.0.0.1:15432/platform?sslmode=disable", "test_x")
	if err != nil || got != "postgres://postgres@127.0.0.1:15432/test_x?sslmode=disable" {
		t.Errorf("URL form: got %q, %v", got, err)
	}
	got, _ = withDatabase("host=127.0.0.1 dbname=platform", "test_x")
	if got != "host=127.0.0.1 dbname=platform dbname=test_x" {
		t.Errorf("keyword/value form: got %q", got)
	}
}

func TestNewDatabase(t *testing.T) {
	dbURL := NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("connect %s: %v", dbURL, err)
	}
	defer conn.Close(context.Background())

	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	var name string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "test_") || !strings.Contains(dbURL, "/"+name) {
		t.Errorf("current_database() = %q for URL %q", name, dbURL)
	}
	// The database is empty: no user tables.
	var tables int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil || tables != 0 {
		t.Errorf("public tables = %d, %v; want 0", tables, err)
	}
}

// TestNewDatabaseDropped checks that the cleanup of NewDatabase drops the
// database even while a connection to it is still open.
func TestNewDatabaseDropped(t *testing.T) {
	adminURL := DatabaseURL(t) // skips (or fails) here when there is no server
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var name string
	var leftover *pgx.Conn
	t.Run("inner", func(t *testing.T) {
		conn, err := pgx.Connect(ctx, NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		leftover = conn // deliberately not closed before the cleanup
		if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
	})
	if leftover != nil {
		defer leftover.Close(context.Background())
	}
	if name == "" {
		t.Fatal("inner test did not get a database")
	}

	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s still exists after the test's cleanup", name)
	}
}

func TestKafkaReachable(t *testing.T) {
	brokers := KafkaBrokers(t)

	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.ClientID = UniqueName("testenv")
	cfg.Metadata.Retry.Max = 10
	cfg.Metadata.Retry.Backoff = 500 * time.Millisecond

	client, err := sarama.NewClient(brokers, cfg)
	if err != nil {
		t.Fatalf("sarama.NewClient(%v): %v", brokers, err)
	}
	defer client.Close()

	if got := client.Brokers(); len(got) == 0 {
		t.Fatalf("no brokers in the metadata of %v", brokers)
	}
	controller, err := client.Controller()
	if err != nil {
		t.Fatalf("controller: %v", err)
	}
	t.Logf("brokers %v, controller id %d at %s", brokers, controller.ID(), controller.Addr())
}
