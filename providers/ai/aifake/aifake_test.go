package aifake

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
)

func TestPiecesJoinBack(t *testing.T) {
	for _, s := range []string{"echo: please repeat", "one", "", "a  b", " lead"} {
		if got := strings.Join(Pieces(s), ""); got != s {
			t.Fatalf("%q -> %q", s, got)
		}
	}
	if n := len(Pieces("echo: a b c")); n != 4 {
		t.Fatalf("%d pieces", n)
	}
}

func TestInstanceMatchesTheSchema(t *testing.T) {
	tests := map[string]string{
		`{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer","minimum":3},"e":{"enum":["x","y"]},"l":{"type":"array","items":{"type":"boolean"}}}}`: `{"a":"fake a","e":"x","l":[true],"n":3}`,
		`{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}`: `{"city":"fake city"}`,
		`{"type":["string","null"]}`:                                `"fake value"`,
		`{"anyOf":[{"type":"number"},{"type":"string"}]}`:           `1`,
	}
	for schema, want := range tests {
		b, _ := json.Marshal(Instance(json.RawMessage(schema)))
		if string(b) != want {
			t.Fatalf("%s -> %s, want %s", schema, b, want)
		}
	}
}

func TestReplyRules(t *testing.T) {
	tool := Tool{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}
	tests := map[string]struct {
		chat     Chat
		text     string
		toolName string
	}{
		"echo":         {Chat{LastUserText: "hi there", Texts: []string{"hi there"}}, "echo: hi there", ""},
		"tool offered": {Chat{LastUserText: "x", Tools: []Tool{tool}}, "", "t"},
		"after result": {Chat{Tools: []Tool{tool}, LastIsToolResult: true, LastToolResult: "42"}, "echo: 42", ""},
		"forced":       {Chat{ForcedTool: "t", Tools: []Tool{tool}, LastIsToolResult: true}, "", "t"},
		"schema":       {Chat{Schema: tool.Parameters}, `{"q":"fake q"}`, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a := Reply(tc.chat)
			if a.Text != tc.text || (a.ToolCall != nil) != (tc.toolName != "") || (a.ToolCall != nil && a.ToolCall.Name != tc.toolName) {
				t.Fatalf("%+v", a)
			}
		})
	}
	if a := Reply(Chat{Texts: []string{"a b", "c"}, Images: 2, LastUserText: "c"}); a.InputTokens != 3+2*ImageTokens || a.OutputTokens != 2 {
		t.Fatalf("%+v", a)
	}
}

type testProtocol struct{}

func (testProtocol) Authorized(r *http.Request) bool { return r.Header.Get("Key") == "k" }
func (testProtocol) WriteError(w http.ResponseWriter, status int, _ time.Duration) {
	w.WriteHeader(status)
}

func TestBeginChecksTheKeyThenPlaysTheScript(t *testing.T) {
	s := NewServer(testProtocol{}, func(h http.Header) { h.Set("Request-Id", "r") })
	s.HandleFunc("POST /x", func(w http.ResponseWriter, r *http.Request) {
		if call, ok := s.Begin(w, r); ok {
			call.JSON(map[string]bool{"ok": true})
		}
	})
	s.Start(t, "")
	s.Then(fakekit.Status(500), fakekit.Status(503))
	s.Always(fakekit.Status(418))
	status := func(key string) int {
		req, _ := http.NewRequest("POST", s.URL+"/x?y=1", strings.NewReader(`{"n":1}`))
		req.Header.Set("Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get("Request-Id") != "r" {
			t.Fatal("not stamped")
		}
		return resp.StatusCode
	}
	got := []int{status("wrong"), status("k"), status("k"), status("k")}
	if got[0] != 401 || got[1] != 500 || got[2] != 503 || got[3] != 418 {
		t.Fatalf("%v", got)
	}
	s.Reset()
	if st := status("k"); st != 200 {
		t.Fatalf("%d", st)
	}
	reqs := s.Requests()
	if len(reqs) != 5 || reqs[0].Path != "/x" || reqs[0].RawQuery != "y=1" || reqs[4].JSON()["n"] != float64(1) {
		t.Fatalf("%+v", reqs)
	}
}

// TestPNGIsARealImage: the fakes' images decode, at PNGSize, with the
// background colour PNGColor says and its inverse on the diagonal; two
// candidates of one prompt differ.
func TestPNGIsARealImage(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(PNG("a red rocket", 0)))
	if err != nil || img.Bounds().Dx() != PNGSize || img.Bounds().Dy() != PNGSize {
		t.Fatalf("decode: %v %v", err, img)
	}
	bg := PNGColor("a red rocket", 0)
	if r, g, b, _ := img.At(50, 5).RGBA(); uint8(r>>8) != bg.R || uint8(g>>8) != bg.G || uint8(b>>8) != bg.B {
		t.Fatalf("background %v, want %v", img.At(50, 5), bg)
	}
	if r, _, _, _ := img.At(10, 10).RGBA(); uint8(r>>8) != 255-bg.R {
		t.Fatalf("band %v", img.At(10, 10))
	}
	if bytes.Equal(PNG("a red rocket", 0), PNG("a red rocket", 1)) {
		t.Fatal("two candidates are the same image")
	}
}

// TestInstanceHonoursMinItems: an array the schema bounds below gets that
// many items (a plan of N scenes).
func TestInstanceHonoursMinItems(t *testing.T) {
	v := Instance(json.RawMessage(`{"type":"object","properties":{"scenes":{"type":"array","minItems":3,"items":{"type":"object",
		"properties":{"title":{"type":"string"}}}}}}`)).(map[string]any)
	if n := len(v["scenes"].([]any)); n != 3 {
		t.Fatalf("%d scenes, want 3", n)
	}
}
