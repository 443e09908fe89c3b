package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// capture runs platformctl with args and returns what it printed on stdout.
func capture(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	runErr := run(args)
	os.Stdout = saved
	w.Close()
	return <-done, runErr
}

// TestHelp: a new user's first try answers with the commands, not
// "unknown command".
func TestHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "help"} {
		out, err := capture(t, arg)
		if err != nil {
			t.Fatalf("platformctl %s: %v", arg, err)
		}
		for _, cmd := range []string{"actions", "history", "replay", "bootstrap", "privacy-maintenance", "PLATFORM_API_KEY"} {
			if !strings.Contains(out, cmd) {
				t.Errorf("platformctl %s does not mention %s:\n%s", arg, cmd, out)
			}
		}
	}
	if _, err := capture(t, "frobnicate"); err == nil || !strings.Contains(err.Error(), "platformctl help") {
		t.Errorf("an unknown command: %v, want an error that points to the help", err)
	}
	// A command's own flags: -h prints them and succeeds.
	if _, err := capture(t, "history", "-h"); err != nil {
		t.Errorf("platformctl history -h: %v", err)
	}
}

var historyPage = `{"events":[
 {"event_id":"0190a","organization_id":"org-1","stream_type":"status.incident","stream_id":"inc-1","stream_version":1,
  "type":"status.incident.created","actor_id":"key-1","actor_type":"api_key","occurred_at":"2026-03-01T10:00:00.123Z",
  "recorded_at":"2026-03-01T10:00:00.2Z","correlation_id":"req-1","payload":{"title":"x"}},
 {"event_id":"0190b","organization_id":"org-1","stream_type":"status.incident","stream_id":"inc-1","stream_version":2,
  "type":"status.incident.updated","actor_id":"user-9","actor_type":"user","occurred_at":"2026-03-01T10:05:00Z",
  "recorded_at":"2026-03-01T10:05:00Z","correlation_id":"req-2","payload":{}}],"next":""}`

func historyServer(t *testing.T) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/history" || r.URL.Query().Get("streamId") != "inc-1" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, historyPage)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("PLATFORM_OPS_URL", srv.URL)
	t.Setenv("PLATFORM_API_KEY", "pk_test")
}

// TestHistoryTable: people get a table (time, type, stream, actor,
// organization), one line per event.
func TestHistoryTable(t *testing.T) {
	historyServer(t)
	out, err := capture(t, "history", "--stream", "inc-1")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows:\n%s", out)
	}
	for _, h := range []string{"TIME", "TYPE", "STREAM", "ACTOR", "ORGANIZATION"} {
		if !strings.Contains(lines[0], h) {
			t.Errorf("header %q lacks %s", lines[0], h)
		}
	}
	for i, want := range [][]string{
		{"2026-03-01 10:00:00", "status.incident.created", "inc-1@1", "api_key:key-1", "org-1"},
		{"2026-03-01 10:05:00", "status.incident.updated", "inc-1@2", "user:user-9", "org-1"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("row %d %q lacks %q", i+1, lines[i+1], w)
			}
		}
	}
	if strings.Contains(out, "{") {
		t.Errorf("the table shows raw JSON:\n%s", out)
	}
}

// TestHistoryJSON: --json keeps the scripts' format, one event object per line.
func TestHistoryJSON(t *testing.T) {
	historyServer(t)
	out, err := capture(t, "history", "--json", "--stream", "inc-1")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines:\n%s", out)
	}
	for i, l := range lines {
		var e struct {
			StreamVersion int             `json:"stream_version"`
			Payload       json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.StreamVersion != i+1 || len(e.Payload) == 0 {
			t.Errorf("line %d: %s (%v)", i, l, err)
		}
	}
}
