package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/fakekit"
)

// TestStreamPassesChunkOneBeforeChunkTwo: the first delta reaches the
// client while the fake still holds the second (nothing is buffered); the
// stream ends with the usage and [DONE], and the final usage is metered.
func TestStreamPassesChunkOneBeforeChunkTwo(t *testing.T) {
	h := start(t)
	for _, id := range []ai.ProviderID{ai.Provider1, ai.Provider2, ai.Provider3} {
		t.Run(string(id), func(t *testing.T) {
			gate := fake(t, h, id).HoldDeltas()
			defer gate.Open()
			res, next := openStream(t, h, "", map[string]any{"provider": string(id), "prompt": "one two three four"})
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d %s", res.StatusCode, res.Header.Get("Content-Type"))
			}
			first, ok := next()
			if !ok || first.Event != "delta" {
				t.Fatalf("first event %+v", first)
			}
			// The fake holds its second delta until the gate opens: the client
			// has the first while the second is not even written.
			if sent := gate.Passed(); sent > 1 {
				t.Fatalf("the fake sent %d deltas before the client read the first: want at most 1 (the rest held)", sent)
			}
			gate.Open()
			var text strings.Builder
			text.WriteString(deltaText(t, first.Data))
			var usage map[string]any
			for {
				ev, ok := next()
				if !ok {
					t.Fatal("stream ended without [DONE]")
				}
				if ev.Data == "[DONE]" {
					break
				}
				switch ev.Event {
				case "delta":
					text.WriteString(deltaText(t, ev.Data))
				case "usage":
					_ = json.Unmarshal([]byte(ev.Data), &usage)
				default:
					t.Fatalf("event %+v", ev)
				}
			}
			if text.String() != "echo: one two three four" || usage["outcome"] != "ok" || usage["cost_cents"].(float64) <= 0 {
				t.Fatalf("text %q usage %v", text.String(), usage)
			}
		})
	}
	events := usageEvents(t, h, "", 3)
	for _, e := range events {
		if e["outcome"] != "ok" || e["estimated"] != false {
			t.Fatalf("usage %v", e)
		}
	}
}

// TestCutStreamSettlesAtTheReservation: a stream cut after two deltas (and
// one that ends cleanly without its usage) gives the client an error event,
// never a clean end, and settles at the reservation, never 0.
func TestCutStreamSettlesAtTheReservation(t *testing.T) {
	h := start(t)
	for name, f := range map[string]fakekit.Fault{"cut": fakekit.Fault{Kind: fakekit.Cut, After: 2}, "end early": fakekit.Fault{Kind: aifake.EndEarly, After: 2}, "no usage": fakekit.Fault{Kind: aifake.NoUsage}} {
		t.Run(name, func(t *testing.T) {
			fake(t, h, ai.Provider1).Next(1, f)
			res, next := openStream(t, h, "", map[string]any{"prompt": "one two three four five", "max_tokens": 100})
			apptest.Must(t, apptest.Response{Status: res.StatusCode}, http.StatusOK, "stream")
			var last sse
			for {
				ev, ok := next()
				if !ok {
					break
				}
				last = ev
				if ev.Event == "error" || ev.Data == "[DONE]" {
					break
				}
			}
			if last.Event != "error" || !strings.Contains(last.Data, `"code":"provider_error"`) {
				t.Fatalf("last event %+v, want an error event", last)
			}
		})
	}
	events := usageEvents(t, h, "", 3)
	for _, e := range events {
		units := e["units"].(map[string]any)
		if e["outcome"] != "cut" || e["estimated"] != true || units["output_tokens"].(float64) < 100 || e["cost_cents"].(float64) <= 0 {
			t.Fatalf("a cut stream settled as %v", e)
		}
	}
}

func deltaText(t *testing.T, data string) string {
	t.Helper()
	var d struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatalf("delta %q: %v", data, err)
	}
	return d.Text
}
