package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/testenv"
)

// TestSchemathesis is the fuzzing gate: schemathesis (pinned in
// scripts/fuzz/requirements.txt, installed by scripts/fuzz.sh) runs every
// check it has against every service's /api/openapi.json of a real platformd
// on loopback, with a fresh database and an operator key. Any failure (a 5xx,
// a response that does not match its declared schema, an undocumented status
// code or content type, an input the schema refuses but the server takes...)
// fails the test with schemathesis's report.
//
//	make fuzz    (only the gate; make test runs it too, with PLATFORM_FUZZ=1)
//
// FUZZ_MAX_EXAMPLES (default 30) bounds the cases per operation and phase;
// FUZZ_SEED (default 1) makes a run repeatable; FUZZ_WORKERS (default 1)
// sets schemathesis's worker threads; FUZZ_SERVICES (e.g.
// status,ops) fuzzes only those; FUZZ_REPORT_DIR keeps the
// reports (JUnit, NDJSON) per service there; FUZZ_SHOW=1 prints the output of
// a passing run too.
func TestSchemathesis(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzing takes minutes; skipped with -short")
	}
	if os.Getenv("PLATFORM_FUZZ") == "" {
		// make test and make fuzz set it; a bare go test ./... stays quick.
		t.Skip("the fuzzing gate runs with PLATFORM_FUZZ=1 (make test, make fuzz)")
	}
	st := schemathesisBinary(t)
	fuzzDir, err := filepath.Abs(filepath.Join("..", "scripts", "fuzz"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{Name: "fuzzed", Env: []string{
		// The fuzzer sends thousands of requests with one key and from one
		// address: the limits would answer 429 to most of them.
		"RATE_LIMIT_PER_SECOND=1000000", "RATE_LIMIT_ATTEMPTS_PER_MINUTE=100000000", "RATE_LIMIT_INBOUND_PER_SECOND=1000000",
		// Every success answer is checked against its output schema by the
		// server too: a mismatch is a 500 naming the member.
		"PLATFORM_HTTP_CHECK_OUTPUT=1",
	}})
	maxExamples := envOr("FUZZ_MAX_EXAMPLES", "30")
	seed := envOr("FUZZ_SEED", "1")
	var summary []string
	services := srv.Services
	if only := os.Getenv("FUZZ_SERVICES"); only != "" {
		services = strings.Split(only, ",")
	}
	for _, svc := range services {
		t.Run(svc, func(t *testing.T) {
			dir := t.TempDir()
			if keep := os.Getenv("FUZZ_REPORT_DIR"); keep != "" {
				dir = filepath.Join(keep, svc)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// The gateway's 50 operations took 6-10 minutes on 2 loaded cores.
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			args := []string{"--config-file", filepath.Join(fuzzDir, "schemathesis.toml"), "run", srv.URL(svc) + "/api/openapi.json",
				"--checks", "all",
				"--max-examples", maxExamples,
				"--seed", seed,
				// One worker: the workers are threads of one Python process, so
				// a second one adds no generation speed, and two operations
				// whose coverage cases are drawn at once (identity's
				// users.create and invitations.create, both with an email
				// member) took 70s to 135s each instead of 2s. One worker
				// also sends the cases in one order, run after run.
				"--workers", envOr("FUZZ_WORKERS", "1"),
				"--header", "Authorization: Bearer " + s.APIKey,
				"--request-timeout", "30",
				"--suppress-health-check", "all",
				"--generation-database", "none",
				"--report", "ndjson,junit", "--report-dir", dir,
				"--report-junit-path", filepath.Join(dir, "junit.xml"), "--report-ndjson-path", filepath.Join(dir, "events.ndjson"),
				"--output-truncate", "false",
				"--no-color",
			}
			if re := os.Getenv("FUZZ_INCLUDE_PATH_REGEX"); re != "" { // a few operations only, while working on them
				args = append(args, "--include-path-regex", re)
			}
			cmd := exec.CommandContext(ctx, st, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "SCHEMATHESIS_HOOKS="+filepath.Join(fuzzDir, "hooks.py"), "NO_COLOR=1", "PYTHONIOENCODING=utf-8")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			err := cmd.Run()
			counts := junitCounts(t, dir)
			line := fmt.Sprintf("%s: %s; %s in %s", svc, counts, filtered(out.Bytes()), time.Since(start).Round(time.Second))
			summary = append(summary, line)
			t.Log(line)
			if err != nil || os.Getenv("FUZZ_SHOW") != "" {
				t.Logf("schemathesis %s:\n%s", strings.Join(redactArgs(args, s.APIKey), " "), tail(out.Bytes(), 48<<10))
			}
			if err != nil {
				t.Fatalf("schemathesis against %s failed: %v", svc, err)
			}
		})
	}
	t.Logf("fuzzing summary:\n%s", strings.Join(summary, "\n"))
}

// schemathesisBinary installs (or finds) the pinned schemathesis.
func schemathesisBinary(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "fuzz.sh"), "setup")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if testenv.InfraRequired() {
			t.Fatalf("scripts/fuzz.sh setup: %v\n%s", err, stderr.Bytes())
		}
		t.Skipf("schemathesis unavailable (scripts/fuzz.sh setup: %v)", err)
	}
	return strings.TrimSpace(string(out))
}

// fuzzCounts are a run's figures, from schemathesis's JUnit report (one test
// case per operation) and its NDJSON event stream (every check's outcome).
type fuzzCounts struct {
	operations, failedOperations int
	requests                     int
	checks                       map[string][2]int // check -> passed, failed
}

func (c fuzzCounts) String() string {
	names := make([]string, 0, len(c.checks))
	for n := range c.checks {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d/%d failed", n, c.checks[n][1], c.checks[n][0]+c.checks[n][1]))
	}
	return fmt.Sprintf("%d operations (%d failing), %d requests; checks: %s",
		c.operations, c.failedOperations, c.requests, strings.Join(parts, ", "))
}

func junitCounts(t *testing.T, dir string) fuzzCounts {
	c := fuzzCounts{checks: map[string][2]int{}}
	if raw, err := os.ReadFile(filepath.Join(dir, "junit.xml")); err == nil {
		c.operations = bytes.Count(raw, []byte("<testcase "))
		c.failedOperations = bytes.Count(raw, []byte("<failure ")) + bytes.Count(raw, []byte("<error "))
	}
	f, err := os.Open(filepath.Join(dir, "events.ndjson"))
	if err != nil {
		return c
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		for _, raw := range ev {
			countChecks(raw, &c)
		}
	}
	return c
}

// countChecks walks a ScenarioFinished event's recorder: interactions are
// requests, checks carry a name and a status.
func countChecks(raw json.RawMessage, c *fuzzCounts) {
	var ev struct {
		Recorder struct {
			Interactions map[string]json.RawMessage `json:"interactions"`
			Checks       map[string][]struct {
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"checks"`
		} `json:"recorder"`
	}
	if json.Unmarshal(raw, &ev) != nil {
		return
	}
	c.requests += len(ev.Recorder.Interactions)
	for _, list := range ev.Recorder.Checks {
		for _, ch := range list {
			n := c.checks[ch.Name]
			if strings.EqualFold(ch.Status, "success") {
				n[0]++
			} else if strings.EqualFold(ch.Status, "failure") {
				n[1]++
			}
			c.checks[ch.Name] = n
		}
	}
}

// filteredLine is schemathesis's count of the failures the filter_failure hook
// of scripts/fuzz/hooks.py dropped (the rules JSON Schema cannot state).
var filteredLine = regexp.MustCompile(`Filtered: ([0-9]+)`)

func filtered(out []byte) string {
	if m := filteredLine.FindSubmatch(out); m != nil {
		return string(m[1]) + " known-rule 422s filtered"
	}
	return "0 known-rule 422s filtered"
}

func redactArgs(args []string, secret string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, secret, "<key>")
	}
	return out
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
