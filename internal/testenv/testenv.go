// Package testenv gives integration tests the real infrastructure they run
// against: a Kafka broker and a PostgreSQL server.
//
// The normal source is the project's own stack (scripts/stack.sh, `make
// stack`), exported through KAFKA_BROKERS and DATABASE_URL (`. .stack/env`).
// When a variable is unset and a Docker engine is healthy, a testcontainer is
// started instead, once per test binary. When neither is available the test
// is skipped, unless PLATFORM_REQUIRE_INFRA=1 or CI is set, in which case it
// fails: CI must never pass by skipping its integration tests.
package testenv

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5"
	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"
)

const (
	// KafkaImage is the image of the Kafka testcontainer: the same Apache
	// Kafka version as the project's stack (scripts/kafka/pom.xml).
	KafkaImage = "apache/kafka:3.9.1"
	// PostgresImage is the image of the PostgreSQL testcontainer.
	PostgresImage = "postgres:15"

	startTimeout = 3 * time.Minute
)

const howToStart = "run `make stack` (or scripts/stack.sh) and `. .stack/env`, or start a Docker engine"

// InfraRequired reports whether missing infrastructure is a test failure
// rather than a skip: PLATFORM_REQUIRE_INFRA=1, or CI set (to anything but
// "" / "0" / "false").
func InfraRequired() bool {
	if os.Getenv("PLATFORM_REQUIRE_INFRA") == "1" {
		return true
	}
	ci := strings.ToLower(strings.TrimSpace(os.Getenv("CI")))
	return ci != "" && ci != "0" && ci != "false"
}

func unavailable(t testing.TB, what string) {
	t.Helper()
	msg := fmt.Sprintf("testenv: %s is not set and no healthy Docker engine was found: %s", what, howToStart)
	if InfraRequired() {
		t.Fatal(msg + " (infrastructure is required: PLATFORM_REQUIRE_INFRA=1 or CI is set)")
	}
	t.Skip(msg)
}

var (
	dockerOnce sync.Once
	dockerOK   bool
)

// dockerHealthy tells, once per test binary, whether testcontainers can reach
// a container engine. It does what testcontainers.SkipIfProviderIsNotHealthy
// does (GetProvider, then Health, recovering from a panic) without calling
// t.Skip, so that a required infrastructure can fail instead.
func dockerHealthy() bool {
	dockerOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				dockerOK = false
			}
		}()
		provider, err := testcontainers.ProviderDefault.GetProvider()
		if err != nil {
			return
		}
		defer provider.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		dockerOK = provider.Health(ctx) == nil
	})
	return dockerOK
}

var (
	kafkaOnce    sync.Once
	kafkaBrokers []string
	kafkaErr     error
)

// KafkaBrokers returns the broker addresses from KAFKA_BROKERS (comma
// separated). If it is unset and a Docker engine is healthy, it starts a Kafka
// testcontainer (KRaft) once per test binary and returns its brokers; the
// container is removed by testcontainers' reaper when the binary exits.
// Otherwise the test fails when InfraRequired, and is skipped if not.
func KafkaBrokers(t testing.TB) []string {
	t.Helper()
	if v := strings.TrimSpace(os.Getenv("KAFKA_BROKERS")); v != "" {
		var brokers []string
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" {
				brokers = append(brokers, b)
			}
		}
		if len(brokers) > 0 {
			return brokers
		}
	}
	if !dockerHealthy() {
		unavailable(t, "KAFKA_BROKERS")
		return nil
	}
	kafkaOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		kafkaBrokers, kafkaErr = startKafkaContainer(ctx)
	})
	if kafkaErr != nil {
		t.Fatalf("testenv: %v", kafkaErr)
	}
	return append([]string(nil), kafkaBrokers...)
}

// startKafkaContainer runs KafkaImage as a single KRaft node. It does what
// testcontainers' kafka module does for Confluent images (that module, v0.40,
// does not build against testcontainers-go v0.45): the advertised client
// address is the host's mapped port, known only once the container runs, so
// the entrypoint waits for a small env file that a post-start hook copies in,
// then runs the image's own start script (/etc/kafka/docker/run).
func startKafkaContainer(ctx context.Context) ([]string, error) {
	const (
		clientPort = "9092/tcp"
		envFile    = "/tmp/testenv-kafka.env"
	)
	ctr, err := testcontainers.Run(ctx, KafkaImage,
		testcontainers.WithExposedPorts(clientPort),
		testcontainers.WithEnv(map[string]string{
			"CLUSTER_ID":                                     "MkU3OEVBNTcwNTJENDM2Qg",
			"KAFKA_NODE_ID":                                  "1",
			"KAFKA_PROCESS_ROLES":                            "broker,controller",
			"KAFKA_LISTENERS":                                "PLAINTEXT://0.0.0.0:9092,BROKER://0.0.0.0:9093,CONTROLLER://0.0.0.0:9094",
			"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP":           "PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
			"KAFKA_INTER_BROKER_LISTENER_NAME":               "BROKER",
			"KAFKA_CONTROLLER_LISTENER_NAMES":                "CONTROLLER",
			"KAFKA_CONTROLLER_QUORUM_VOTERS":                 "1@localhost:9094",
			"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR":         "1",
			"KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
			"KAFKA_TRANSACTION_STATE_LOG_MIN_ISR":            "1",
			"KAFKA_MIN_INSYNC_REPLICAS":                      "1",
			"KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS":         "0",
			"KAFKA_NUM_PARTITIONS":                           "3",
			"KAFKA_AUTO_CREATE_TOPICS_ENABLE":                "false",
		}),
		testcontainers.WithEntrypoint("sh"),
		testcontainers.WithCmd("-c",
			"until grep -q '^#end' "+envFile+" 2>/dev/null; do sleep 0.1; done; . "+envFile+"; exec /etc/kafka/docker/run"),
		testcontainers.WithLifecycleHooks(testcontainers.ContainerLifecycleHooks{
			PostStarts: []testcontainers.ContainerHook{
				func(ctx context.Context, c testcontainers.Container) error {
					if err := wait.ForMappedPort(clientPort).WaitUntilReady(ctx, c); err != nil {
						return fmt.Errorf("wait for mapped port: %w", err)
					}
					endpoint, err := c.PortEndpoint(ctx, clientPort, "")
					if err != nil {
						return fmt.Errorf("port endpoint: %w", err)
					}
					inspect, err := c.Inspect(ctx)
					if err != nil {
						return fmt.Errorf("inspect: %w", err)
					}
					env := fmt.Sprintf("export KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://%s,BROKER://%s:9093\n#end\n",
						endpoint, inspect.Config.Hostname)
					if err := c.CopyToContainer(ctx, []byte(env), envFile, 0o644); err != nil {
						return fmt.Errorf("copy %s: %w", envFile, err)
					}
					return wait.ForLog("Kafka Server started").WithStartupTimeout(2*time.Minute).WaitUntilReady(ctx, c)
				},
			},
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("start Kafka testcontainer %s: %w", KafkaImage, err)
	}
	endpoint, err := ctr.PortEndpoint(ctx, clientPort, "")
	if err != nil {
		return nil, fmt.Errorf("kafka testcontainer endpoint: %w", err)
	}
	return []string{endpoint}, nil
}

var (
	pgOnce sync.Once
	pgURL  string
	pgErr  error
)

// DatabaseURL returns DATABASE_URL. If it is unset and a Docker engine is
// healthy, it starts a PostgreSQL 15 testcontainer once per test binary and
// returns its URL. Otherwise the test fails when InfraRequired, and is skipped
// if not.
//
// Tests that write should not use this database directly: NewDatabase gives
// each test an empty database of its own on the same server.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	if v := strings.TrimSpace(os.Getenv("DATABASE_URL")); v != "" {
		return v
	}
	if !dockerHealthy() {
		unavailable(t, "DATABASE_URL")
		return ""
	}
	pgOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		c, err := tcpostgres.Run(ctx, PostgresImage,
			tcpostgres.WithDatabase("platform"),
			tcpostgres.WithUsername("postgres"),
			tcpostgres.WithPassword("postgres"),
			tcpostgres.BasicWaitStrategies(),
		)
		if err != nil {
			pgErr = fmt.Errorf("start PostgreSQL testcontainer %s: %w", PostgresImage, err)
			return
		}
		pgURL, pgErr = c.ConnectionString(ctx, "sslmode=disable")
	})
	if pgErr != nil {
		t.Fatalf("testenv: %v", pgErr)
	}
	return pgURL
}

// NewDatabase creates a fresh empty database (CREATE DATABASE test_<random>)
// on the server of DatabaseURL and returns its URL. The database is dropped
// (WITH (FORCE), so leftover connections do not block it) in t.Cleanup.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return NewDatabaseOn(t, DatabaseURL(t))
}

// NewDatabaseOn is NewDatabase on the server of base (a second stack, such
// as the fault tests').
func NewDatabaseOn(t testing.TB, base string) string {
	t.Helper()
	name := "test_" + randomSuffix(12)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("testenv: connect to %s: %v", redact(base), err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("testenv: create database %s: %v", name, err)
	}

	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("testenv: drop database %s: connect: %v", name, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("testenv: drop database %s: %v", name, err)
		}
	})

	u, err := withDatabase(base, name)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return u
}

// withDatabase returns the connection string base pointing at database name.
// Both URL (postgres://...) and keyword/value ("host=... dbname=...") forms
// are handled.
func withDatabase(base, name string) (string, error) {
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		u, err := url.Parse(base)
		if err != nil {
			return "", fmt.Errorf("parse database URL: %w", err)
		}
		u.Path = "/" + name
		u.RawPath = ""
		return u.String(), nil
	}
	// Keyword/value form: a later dbname overrides an earlier one.
	return strings.TrimSpace(base) + " dbname=" + name, nil
}

// redact hides a password in a URL for messages.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

// UniqueName returns base + "_" + a short random suffix, for topic prefixes,
// consumer groups and the like. The result is lowercase [a-z0-9_]: base is
// lowercased and any other character in it becomes '_'.
func UniqueName(base string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	b.WriteByte('_')
	b.WriteString(randomSuffix(8))
	return b.String()
}

const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

func randomSuffix(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf) // crypto/rand.Read never fails (Go 1.24+)
	for i, c := range buf {
		buf[i] = alphabet[int(c)%len(alphabet)]
	}
	return string(buf)
}

// TopicPrefix is a fresh topic prefix for a test (UniqueName(base)) whose
// topics are deleted when the test ends: a suite makes thousands of
// partitions otherwise, and a broker holding them slows down and runs out
// of open files.
func TopicPrefix(t testing.TB, brokers []string, base string) string {
	t.Helper()
	prefix := UniqueName(base)
	t.Cleanup(func() { deleteTopics(t, brokers, prefix+".") })
	return prefix
}

// deleteTopics removes every topic whose name starts with prefix. A
// failure is logged, not fatal: the test itself is over.
func deleteTopics(t testing.TB, brokers []string, prefix string) {
	cfg := sarama.NewConfig()
	cfg.Net.DialTimeout = 3 * time.Second
	cfg.Metadata.Retry.Max = 0 // a broker already gone (the fault suite stops its own) is not waited for
	admin, err := sarama.NewClusterAdmin(brokers, cfg)
	if err != nil {
		t.Logf("delete topics %s*: %v", prefix, err)
		return
	}
	defer admin.Close()
	topics, err := admin.ListTopics()
	if err != nil {
		t.Logf("delete topics %s*: %v", prefix, err)
		return
	}
	for name := range topics {
		if strings.HasPrefix(name, prefix) {
			if err := admin.DeleteTopic(name); err != nil {
				t.Logf("delete topic %s: %v", name, err)
			}
		}
	}
}
