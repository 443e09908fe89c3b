package httpapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
)

// Members that hold secrets compared as bytes (passwords): they get a
// maximum length but no character pattern, because a pattern added now
// would lock out a password that was valid when it was set.
// The gateway's provider credentials are secrets too: a pattern's refusal
// would quote the value, so the command refuses control characters itself.
var boundsSecretMembers = []string{"password", "currentPassword", "newPassword", "api_key", "server_token", "secret_key",
	"access_token", "app_secret", "verify_token", "webhook_secret", "webhook_username", "webhook_password"}

// Members that take any text without a pattern, and why (keyed "<action> <pointer>").
var boundsUnpatterned = map[string]string{
	"app_platform_auth.organizations.slug_availability /slug": "any text is classified (reason invalid), never refused",
}

// Members that are multi-line text: they may hold \n, \r and \t, never other
// control characters.
// The gateway's texts for models (prompts, messages, queries, texts to
// translate or embed, a tool's description) are multi-line too, and so is
// a contact's note (body); the compatible routes' system prompt (Anthropic's
// system) and a model's refusal (OpenAI's, sent back in the history).
var boundsMultiLineMembers = []string{"message", "prompt", "content", "text", "query", "input", "initial_prompt", "context", "texts",
	"description", "body", "html", "reason", "system", "refusal", // reason: publishing's rejection notes
	// The studio's prose: a brief's objective, audience and style notes, a
	// composition's notes, an approval's note, and the prompt fragments of
	// presets and templates (settings, promptDefaults: values sent to models).
	"objective", "audience", "styleNotes", "note", "notes", "settings", "promptDefaults",
	// The agent's: a task's instructions, a persona's greeting and
	// instructions (prompt text).
	"instructions", "greeting"}

// TestEveryInputStringIsBounded walks the input schema of every action of
// every service the app builds (as /api/actions serves them) and fails on a
// string member without maxLength (or enum, const, format uuid), and on a
// free-text member whose pattern lets control characters through (a 900 KB
// title with escape sequences was stored and would have been served on the
// public status page).
func TestEveryInputStringIsBounded(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	services := make([]string, 0, len(h.URLs))
	for s := range h.URLs {
		services = append(services, s)
	}
	sort.Strings(services)
	if len(services) < 3 {
		t.Fatalf("the app built %v, want every service", services)
	}
	var problems []string
	actions := 0
	for _, svc := range services {
		res := h.Do(t, svc, http.MethodGet, "/api/actions", "-", nil)
		apptest.Must(t, res, http.StatusOK, svc+" actions")
		var body struct {
			Actions []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"actions"`
		}
		res.JSON(t, &body)
		for _, a := range body.Actions {
			actions++
			boundsWalk(a.InputSchema, a.Name, "", "", &problems)
		}
	}
	if actions == 0 {
		t.Fatal("no action descriptors")
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// boundsWalk checks one schema node and every subschema under it; member is
// the name of the object member the node describes (for the exceptions).
func boundsWalk(node map[string]any, where, pointer, member string, problems *[]string) {
	if node == nil {
		return
	}
	if boundsIsString(node["type"]) {
		boundsCheckString(node, where+" "+pointer, member, problems)
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for name, s := range props {
			sub, _ := s.(map[string]any)
			boundsWalk(sub, where, pointer+"/"+name, name, problems)
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains"} {
		if sub, ok := node[k].(map[string]any); ok {
			boundsWalk(sub, where, pointer+"/"+k, member, problems)
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		if list, ok := node[k].([]any); ok {
			for i, s := range list {
				sub, _ := s.(map[string]any)
				boundsWalk(sub, where, fmt.Sprintf("%s/%s/%d", pointer, k, i), member, problems)
			}
		}
	}
	for _, k := range []string{"patternProperties", "$defs", "definitions"} {
		if m, ok := node[k].(map[string]any); ok {
			for name, s := range m {
				sub, _ := s.(map[string]any)
				boundsWalk(sub, where, pointer+"/"+k+"/"+name, member, problems)
			}
		}
	}
}

func boundsIsString(typ any) bool {
	switch t := typ.(type) {
	case string:
		return t == "string"
	case []any:
		return slices.Contains(t, any("string"))
	}
	return false
}

// Control characters a free-text member must refuse, besides \n, \r and \t
// (which only multi-line members accept).
var boundsControls = []string{"\x00", "\x01", "\x1b", "\x7f", "\u0085", "\u009b"}

func boundsCheckString(node map[string]any, where, member string, problems *[]string) {
	_, hasEnum := node["enum"]
	_, hasConst := node["const"]
	if hasEnum || hasConst || node["format"] == "uuid" {
		return // inherently bounded and free of control characters
	}
	if _, ok := node["maxLength"]; !ok {
		*problems = append(*problems, where+": string without maxLength")
	}
	if slices.Contains(boundsSecretMembers, member) || node["format"] == "date-time" || boundsUnpatterned[where] != "" {
		return // a date-time's format admits no control character
	}
	pattern, _ := node["pattern"].(string)
	if pattern == "" {
		*problems = append(*problems, where+": free text without a pattern refusing control characters")
		return
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		*problems = append(*problems, where+": pattern does not compile: "+err.Error())
		return
	}
	for _, c := range boundsControls {
		for _, s := range []string{c, "ab" + c + "cd", "https://example.test/" + c} {
			if re.MatchString(s) {
				*problems = append(*problems, fmt.Sprintf("%s: pattern %q accepts the control character %q", where, pattern, c))
			}
		}
	}
	multi := false
	for _, s := range []string{"ab\ncd", "ab\r\ncd", "ab\tcd"} {
		multi = multi || re.MatchString(s)
	}
	if multi && !slices.Contains(boundsMultiLineMembers, member) {
		*problems = append(*problems, fmt.Sprintf("%s: single-line member %q accepts line breaks or tabs (pattern %q)", where, member, pattern))
	}
}

// TestOversizedAndControlTextRefused: the finding of the hardening issue (a
// 900 KB incident title was stored) and its siblings answer 422 naming the
// member, before any command runs; a multi-line message keeps its line breaks.
func TestOversizedAndControlTextRefused(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	valid := func() map[string]any {
		return map[string]any{"title": "API errors", "message": "Investigating.", "severity": "major"}
	}
	tests := []struct {
		name    string
		set     map[string]any
		pointer string
	}{
		{"900 KB title", map[string]any{"title": strings.Repeat("t", 900_000)}, "/title"},
		{"title one character too long", map[string]any{"title": strings.Repeat("t", 201)}, "/title"},
		{"title on two lines", map[string]any{"title": "API\nerrors"}, "/title"},
		{"title with an escape sequence", map[string]any{"title": "\x1b[2JAPI"}, "/title"},
		{"title with NUL", map[string]any{"title": "API\x00"}, "/title"},
		{"message too long", map[string]any{"message": strings.Repeat("m", 10_001)}, "/message"},
		{"message with a control character", map[string]any{"message": "ok\x07"}, "/message"},
		{"component host too long", map[string]any{"componentHost": strings.Repeat("h", 254)}, "/componentHost"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := valid()
			for k, v := range tc.set {
				body[k] = v
			}
			p := apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/api/incidents", "", body), http.StatusUnprocessableEntity, "invalid_input")
			if len(p.Errors) != 1 || p.Errors[0].Pointer != tc.pointer {
				t.Fatalf("problem %+v, want one error at %s", p.Errors, tc.pointer)
			}
		})
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created'`); n != 0 {
		t.Fatalf("%d incidents stored from refused requests", n)
	}
	body := valid()
	body["title"], body["message"] = strings.Repeat("é", 200), "Line one.\r\n\tLine two."
	apptest.Must(t, h.Do(t, "status", http.MethodPost, "/api/incidents", "", body), http.StatusCreated, "longest title, multi-line message")

	// Identity and ops members are bounded the same way.
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", "", map[string]any{"name": "ci\nkey", "scopes": []string{"status:read"}}),
		http.StatusUnprocessableEntity, "invalid_input")
	apptest.ExpectProblem(t, h.Do(t, "ops", http.MethodGet, "/api/history?type="+strings.Repeat("x", 129), "", nil),
		http.StatusUnprocessableEntity, "invalid_input")
}
