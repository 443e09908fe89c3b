package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/internal/testenv"
)

// faultInfra is a second Kafka broker and PostgreSQL server of the project's
// own scripts (scripts/stack.sh with STACK_DIR=.stack/fault and other
// ports) that the fault tests stop and start under load. The shared stack
// the other tests run on is never touched. It starts with the first fault
// test and is stopped (its data removed) when the test binary ends.
type faultInfra struct {
	root, dir          string
	kafkaPort, pgPort  int
	Brokers, BaseDBURL string
}

var fault struct {
	once  sync.Once
	infra *faultInfra
	err   error
}

// Ports of the fault stack: beside the shared stack's 19092/19093 and 15432.
const (
	faultKafkaPort = 29092
	faultPGPort    = 25432
)

// faultStack starts the fault stack once. Where it cannot start (no Java or
// PostgreSQL binaries, as on a machine that runs the stack in Docker) the
// test is skipped, unless infrastructure is required (CI): then it fails.
func faultStack(t *testing.T) *faultInfra {
	t.Helper()
	fault.once.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			fault.err = err
			return
		}
		root := filepath.Dir(wd)
		f := &faultInfra{root: root, dir: filepath.Join(root, ".stack", "fault"), kafkaPort: faultKafkaPort, pgPort: faultPGPort}
		f.Brokers = fmt.Sprintf("127.0.0.1:%d", f.kafkaPort)
		f.BaseDBURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/platform?sslmode=disable", f.pgPort)
		if out, err := f.run("stack.sh", "start"); err != nil {
			fault.err = fmt.Errorf("scripts/stack.sh start (fault stack): %v\n%s", err, out)
			return
		}
		fault.infra = f
	})
	if fault.err != nil {
		if testenv.InfraRequired() {
			t.Fatalf("fault stack: %v", fault.err)
		}
		t.Skipf("fault stack unavailable: %v", fault.err)
	}
	return fault.infra
}

// stopFaultStack ends the fault stack's processes and removes its data.
func stopFaultStack() {
	if fault.infra == nil {
		return
	}
	if out, err := fault.infra.run("stack.sh", "stop"); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: stopping the fault stack: %v\n%s", err, out)
		return
	}
	if os.Getenv("E2E_KEEP_FAULT_STACK") == "" {
		_ = os.RemoveAll(fault.infra.dir)
	}
}

func (f *faultInfra) run(script string, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(f.root, "scripts", script), args...)
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "KAFKA_BROKERS" || k == "DATABASE_URL" || k == "STACK_DIR" || strings.HasPrefix(k, "KAFKA_") || strings.HasPrefix(k, "PG_") {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "STACK_DIR="+f.dir, fmt.Sprintf("KAFKA_PORT=%d", f.kafkaPort), fmt.Sprintf("PG_PORT=%d", f.pgPort),
		"KAFKA_HEAP=-Xmx512m -Xms128m")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// must runs a stack script and fails the test when it fails; it returns how
// long it took.
func (f *faultInfra) must(t *testing.T, script string, args ...string) time.Duration {
	t.Helper()
	start := time.Now()
	if out, err := f.run(script, args...); err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, out)
	}
	return time.Since(start)
}

func (f *faultInfra) StopKafka(t *testing.T) time.Duration  { return f.must(t, "kafka.sh", "stop") }
func (f *faultInfra) StartKafka(t *testing.T) time.Duration { return f.must(t, "kafka.sh", "start") }
func (f *faultInfra) StopPostgres(t *testing.T) time.Duration {
	return f.must(t, "postgres.sh", "stop")
}
func (f *faultInfra) StartPostgres(t *testing.T) time.Duration {
	return f.must(t, "postgres.sh", "start")
}

// NewStack is a test's share of the fault stack: a database and a topic
// prefix on it, and the bootstrap organization.
func (f *faultInfra) NewStack(t *testing.T) *Stack {
	t.Helper()
	return newStack(t, testenv.NewDatabaseOn(t, f.BaseDBURL), f.Brokers)
}
