package httpapi

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/internal/schema"
)

// quickSchemas are input schemas written as the services write theirs.
var quickSchemas = []json.RawMessage{
	Object([]string{"incidentId", "message"}, map[string]string{
		"incidentId": NonEmptyID, "status": `{"type":"string","enum":["investigating","identified","monitoring","resolved"]}`,
		"message": TextSchema(1, 12), "severity": `{"type":"string","enum":["minor","major","critical"]}`, "title": LineSchema(1, 8)}),
	Object([]string{"title"}, map[string]string{"title": LineSchema(2, 6), "componentHost": NullableLine(5),
		"autoStart": `{"type":"boolean"}`, "limit": `{"type":"integer","minimum":1,"maximum":200}`, "note": `{"type":"string","maxLength":4}`,
		"code": PatternSchema(6, `^[a-z][a-z0-9_]*$`), "scheme": `{"type":"string","maxLength":8,"pattern":"^https?://[!-~]+$"}`}),
	Object(nil, map[string]string{"at": DateTimeSchema(), "site": URLSchema("https?"), "n": `{"type":"number"}`}), // members beyond quickCheck: inputs holding one are the validator's
	json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","maxLength":3}}}`),                       // open: other members pass
	completionLike,
	json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"],"minProperties":2}]}`), // an alternative beyond required lists
}

// completionLike is written as the gateway's completion input (http/gateway,
// completionSchema): every member optional, messages or a prompt required
// (anyOf of required lists), members quickCheck leaves to the validator
// (an array of objects, a number) beside ones it checks.
var completionLike = func() json.RawMessage {
	var s map[string]any
	_ = json.Unmarshal(Object(nil, map[string]string{"prompt": TextSchema(1, 12), "max_tokens": `{"type":"integer","minimum":1,"maximum":200}`,
		"stream": `{"type":"boolean"}`, "temperature": `{"type":"number","minimum":0,"maximum":2}`,
		"messages": `{"type":"array","minItems":1,"items":{"type":"object","required":["role"],"properties":{"role":{"type":"string"}}}}`}), &s)
	s["anyOf"] = []any{map[string]any{"required": []string{"messages"}}, map[string]any{"required": []string{"prompt"}}}
	out, _ := json.Marshal(s)
	return out
}()

// quickless are the quickSchemas quickCheck does not read (the validator
// checks every input).
var quickless = map[int]bool{5: true}

// An input quickCheck accepts is one the validator accepts: quickCheck
// never answers for the validator's refusals (their status and failing
// members), it only skips the validator where it would find nothing.
func TestQuickCheckNeverAcceptsWhatTheSchemaRefuses(t *testing.T) {
	pool := []any{"", "a", "ab", "abcdef", "abcdefghijklmnopq", "investigating", "minor", "x\x00y", "x\x1fy", "x\x7fy", "x\u0085y",
		"tab\there", "line\nbreak", "héllo", "日本語テキスト", "🙂🙂", "https://a.example/x", "ftp://a.example", "https://a b",
		"2026-01-02T03:04:05Z", "not-a-date", "a_1", "1a", json.Number("0"), json.Number("1"), json.Number("200"), json.Number("201"),
		json.Number("-3"), json.Number("2.5"), json.Number("1e3"), int64(7), true, false, nil,
		map[string]any{"k": "v"}, []any{"a"}, strings.Repeat("é", 9)}
	rng := rand.New(rand.NewPCG(22, 1))
	pool = append(pool, []any{map[string]any{"role": "user"}}, []any{}, json.Number("0.5"))
	for i, raw := range quickSchemas {
		a := &Action{Name: "quick.test", InputSchema: raw, OutputSchema: json.RawMessage(`{"type":"object"}`)}
		if err := a.withDefaults(); err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(a.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		names := []string{"extra"}
		for k := range s.Properties {
			names = append(names, k)
		}
		if (a.quick == nil) != quickless[i] {
			t.Fatalf("schema %d: quickCheck %v", i, a.quick != nil)
		}
		if a.quick == nil {
			continue
		}
		accepted := 0
		for range 100000 {
			in := map[string]any{}
			for _, k := range names {
				if rng.IntN(3) == 0 { // few members a time: more inputs to accept
					in[k] = pool[rng.IntN(len(pool))]
				}
			}
			if !a.quick.accepts(in) {
				continue
			}
			accepted++
			if problems := schema.ValidateValue(a.input, in); len(problems) > 0 {
				t.Fatalf("schema %d: quickCheck accepts %#v, the validator refuses it: %+v", i, in, problems)
			}
		}
		t.Logf("schema %d: %d of 100000 inputs accepted", i, accepted)
		if accepted < 20 {
			t.Fatalf("schema %d: quickCheck accepted %d inputs of 100000: it is not used", i, accepted)
		}
	}
}

// The class lookup of ^[class]*$ patterns matches as the regexp does,
// invalid UTF-8 included.
func TestStarredClassMatchesAsTheRegexp(t *testing.T) {
	samples := []string{"", "plain", "tab\t", "nl\n", "cr\r", "\x00", "\x1f", "\x7f", "\u0080", "\u0085", "\u009f", "\u00a0",
		"é日本🙂", "\xff", "a\xc3", "\u2028", "\x08\x0b\x0c\x0e"}
	for _, p := range []string{text.LinePattern, text.MultiLinePattern, `^[^\x00]*$`, `^[a-z0-9_-]*$`, `^[!-~]*$`} {
		if starredClass(p) == nil {
			t.Fatalf("%s: not read as ^[class]*$", p)
		}
		re, quick := regexp.MustCompile(p), compilePattern(p)
		for _, s := range samples {
			if re.MatchString(s) != quick(s) {
				t.Fatalf("%s on %q: regexp %v, class %v", p, s, re.MatchString(s), quick(s))
			}
		}
	}
	for _, p := range []string{`^[a-z][a-z0-9_]*$`, `^https?://[!-~]+$`, `[a-z]*`, `^[a-z]*`, `^[a-z]+$`} {
		if starredClass(p) != nil {
			t.Fatalf("%s read as ^[class]*$", p)
		}
	}
}

// A valid input of an action whose schema quickCheck knows is checked
// without the validator's allocations.
func TestValidInputChecksWithoutAllocating(t *testing.T) {
	a := &Action{Name: "quick.test", InputSchema: quickSchemas[0], OutputSchema: json.RawMessage(`{"type":"object"}`)}
	if err := a.withDefaults(); err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"incidentId": "i-1", "message": "fixing", "status": "identified"}
	if n := testing.AllocsPerRun(100, func() {
		if err := a.validateInput(nil, in); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Fatalf("%v allocations to check a valid input", n)
	}
}

// A completion's plain input (a prompt, max tokens) is checked without the
// validator too, though its schema has members beyond quickCheck (messages,
// temperature) and an anyOf of required members; one holding such a member
// still goes to the validator, and one with neither alternative is refused
// by it.
func TestPlainCompletionInputChecksWithoutAllocating(t *testing.T) {
	a := &Action{Name: "quick.test", InputSchema: completionLike, OutputSchema: json.RawMessage(`{"type":"object"}`)}
	if err := a.withDefaults(); err != nil {
		t.Fatal(err)
	}
	if a.quick == nil {
		t.Fatal("no quickCheck for a completion's input")
	}
	in := map[string]any{"prompt": "hello", "max_tokens": json.Number("64")}
	if n := testing.AllocsPerRun(100, func() {
		if err := a.validateInput(nil, in); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Fatalf("%v allocations to check a plain completion input", n)
	}
	for _, in := range []map[string]any{
		{"messages": []any{map[string]any{"role": "user"}}},
		{"prompt": "hello", "temperature": json.Number("0.5")},
		{"max_tokens": json.Number("64")},
	} {
		if a.quick.accepts(in) {
			t.Errorf("%v: accepted without the validator", in)
		}
	}
	if err := a.validateInput(nil, map[string]any{"max_tokens": json.Number("64")}); err == nil {
		t.Error("neither messages nor a prompt: accepted")
	}
}
