package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/testenv"
)

// TestGatewayOpenAIAndAnthropicSDKs (issue 23): the official openai and
// anthropic Python packages (pinned in scripts/sdk/requirements.txt,
// installed into .stack/sdk/venv by scripts/pyenv.sh) pointed at a real
// platformd's gateway with the platform API key run scripts/sdk/compat.py:
// the model list with prices, a streamed chat, a tool call and its result,
// JSON mode, embeddings (base64 as the SDK asks by default, and float),
// an Anthropic message, stream and tool use. Every call is metered as the
// native routes are: one gateway.usage.recorded per call, with the same
// members and the native actions (ai.completions, ai.embeddings). Then a
// hard cap below the month's spend: every SDK call raises the SDK's own
// exception for 402 (openai.APIStatusError with code spend_cap_exceeded,
// anthropic.PaymentRequiredError with billing_error), before any provider
// call and with no usage event.
func TestGatewayOpenAIAndAnthropicSDKs(t *testing.T) {
	python := sdkPython(t)
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{Services: []string{"identity", "gateway"}})
	gw := srv.URL("gateway")

	// One native call first: the usage event every SDK call must match in kind.
	expect(t, "native completion", do(t, Req{Method: http.MethodPost, URL: gw + "/api/ai/completions", Key: s.APIKey,
		Body: map[string]any{"prompt": "hello", "max_tokens": 16}}), http.StatusOK)
	pool := s.Pool()
	usage := func() int64 {
		return queryInt(t, pool, `SELECT count(*) FROM es_events WHERE organization_id = $1 AND event_type = 'gateway.usage.recorded'`, s.OrgID)
	}
	eventually(t, 10*time.Second, "the native usage event", func() error { return boolErr(usage() == 1, "no usage event") })

	steps := runCompat(t, python, gw, s.APIKey, "calls")
	for _, want := range []string{"models", "openai.stream", "openai.tool_call", "openai.json_mode", "openai.embeddings",
		"anthropic.message", "anthropic.stream", "anthropic.tool_use"} {
		if !slices.Contains(steps, want) {
			t.Fatalf("compat.py calls did not report %s (%v)", want, steps)
		}
	}
	// stream 1, tool call 2, JSON 1, embeddings 2, Anthropic 3, and the native one.
	const calls = 1 + 1 + 2 + 1 + 2 + 3
	if n := usage(); n != calls {
		t.Fatalf("%d usage events, want %d: every SDK call metered once", n, calls)
	}
	rows, err := pool.Query(context.Background(), `SELECT payload FROM es_events WHERE organization_id = $1
		AND event_type = 'gateway.usage.recorded' ORDER BY global_seq`, s.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	var native []string
	actions := map[string]int{}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		_ = json.Unmarshal(raw, &p)
		keys := keysOf(p)
		if native == nil {
			native = keys
		} else if !slices.Equal(keys, native) {
			t.Errorf("an SDK call's usage event has members %v, the native call's %v", keys, native)
		}
		if p["outcome"] != "ok" || p["cost_microcents"].(float64) <= 0 {
			t.Errorf("usage event %s", raw)
		}
		actions[p["action"].(string)+" "+p["operation"].(string)]++
	}
	rows.Close()
	if actions["ai.completions chat"] != calls-2 || actions["ai.embeddings embedding"] != 2 {
		t.Fatalf("usage events by action: %v", actions)
	}

	// A hard cap below what the month already spent.
	expect(t, "hard cap", do(t, Req{Method: http.MethodPost, URL: gw + "/api/billing/spend-caps", Key: s.APIKey,
		Body: map[string]any{"scopeType": "organization", "monthlyCapCents": 0.000001, "capMode": "hard"}}), http.StatusOK)
	steps = runCompat(t, python, gw, s.APIKey, "capped")
	if len(steps) != 4 {
		t.Fatalf("compat.py capped reported %v", steps)
	}
	if n := usage(); n != calls {
		t.Fatalf("%d usage events after the refused calls, want %d", n, calls)
	}
}

// sdkPython installs (or finds) the pinned SDKs' venv and returns its python.
func sdkPython(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "pyenv.sh"), "setup", "sdk")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if testenv.InfraRequired() {
			t.Fatalf("scripts/pyenv.sh setup sdk: %v\n%s", err, stderr.Bytes())
		}
		t.Skipf("the SDKs are unavailable (scripts/pyenv.sh setup sdk: %v)", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "bin", "python")
}

// runCompat runs one phase of scripts/sdk/compat.py and returns the steps
// it reported.
func runCompat(t *testing.T, python, gatewayURL, key, phase string) []string {
	t.Helper()
	root, _ := filepath.Abs("..")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, filepath.Join(root, "scripts", "sdk", "compat.py"), phase)
	cmd.Env = append(baseEnv(), "GATEWAY_URL="+gatewayURL, "PLATFORM_API_KEY="+key)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("compat.py %s: %v\n%s%s", phase, err, stdout.Bytes(), tail(stderr.Bytes(), 16<<10))
	}
	var steps []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var r struct {
			Step string `json:"step"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("compat.py %s printed %q", phase, line)
		}
		steps = append(steps, r.Step)
		t.Logf("%s", line)
	}
	return steps
}

// keysOf are a usage event's members, less those it carries only
// sometimes (omitempty: the user a key acts as, an error, the provider's
// request id).
func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "user_id" && k != "error" && k != "provider_request_id" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func boolErr(ok bool, msg string) error {
	if ok {
		return nil
	}
	return errString(msg)
}

type errString string

func (e errString) Error() string { return string(e) }
