package aifake

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ImageTokens is what a fake counts for each input image.
const ImageTokens = 85

// Words is the fakes' token count: whitespace-separated words.
func Words(s string) int { return len(strings.Fields(s)) }

// Runes counts Unicode code points.
func Runes(s string) int { return utf8.RuneCountInString(s) }

// Chat is a chat request as the fakes see it, whatever the protocol.
type Chat struct {
	Texts            []string // every text of the request (system and messages)
	Images           int
	LastUserText     string
	LastIsToolResult bool
	LastToolResult   string
	Tools            []Tool
	ForcedTool       string          // a tool the request forces (Anthropic structured output)
	Schema           json.RawMessage // structured output asked
}

// Turn adds one message's text: role "user" (the last user text), "tool"
// (a tool's result), any other (the model's turn, a system prompt).
func (c *Chat) Turn(role, text string) {
	c.Texts = append(c.Texts, text)
	c.LastIsToolResult = role == "tool"
	switch role {
	case "user":
		c.LastUserText = text
	case "tool":
		c.LastToolResult = text
	}
}

// Tool is a tool a request offers.
type Tool struct {
	Name       string
	Parameters json.RawMessage
}

// Answer is a fake's deterministic answer.
type Answer struct {
	Text         string
	ToolCall     *ToolCall
	InputTokens  int
	OutputTokens int
}

// ToolCall is a call the fake "model" makes.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Reply answers a chat deterministically:
//   - a forced tool: a call to it, arguments built from its schema;
//   - structured output: a JSON value built from the schema;
//   - tools offered and the last turn not a tool result: a call to the first tool;
//   - after a tool result: "echo: " and the result;
//   - else "echo: " and the last user text.
//
// Input tokens are the words of every text plus ImageTokens per image;
// output tokens the words of the answer (of the arguments, for a call).
func Reply(c Chat) Answer {
	in := c.Images * ImageTokens
	for _, t := range c.Texts {
		in += Words(t)
	}
	call := func(t Tool) Answer {
		args, _ := json.Marshal(Instance(t.Parameters))
		return Answer{ToolCall: &ToolCall{ID: "call_" + t.Name, Name: t.Name, Arguments: args},
			InputTokens: in, OutputTokens: Words(string(args))}
	}
	text := func(s string) Answer { return Answer{Text: s, InputTokens: in, OutputTokens: Words(s)} }
	switch {
	case c.ForcedTool != "":
		for _, t := range c.Tools {
			if t.Name == c.ForcedTool {
				return call(t)
			}
		}
		return call(Tool{Name: c.ForcedTool})
	case len(c.Schema) > 0:
		b, _ := json.Marshal(Instance(c.Schema))
		return text(string(b))
	case len(c.Tools) > 0 && !c.LastIsToolResult:
		return call(c.Tools[0])
	case c.LastIsToolResult:
		return text("echo: " + c.LastToolResult)
	default:
		return text("echo: " + c.LastUserText)
	}
}

// Pieces splits an answer into stream deltas: one word each, the spaces
// kept, so the pieces join back to the text.
func Pieces(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && s[i-1] != ' ' {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// Halves splits tool-call arguments into two fragments (clients must join them).
func Halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	return []string{s[:len(s)/2], s[len(s)/2:]}
}

// Vector is a deterministic embedding of text with dims dimensions.
func Vector(text string, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		h := fnv.New32a()
		h.Write([]byte{byte(i), byte(i >> 8)})
		h.Write([]byte(text))
		v[i] = float32(math.Round((float64(h.Sum32())/math.MaxUint32*2-1)*1e6) / 1e6)
	}
	return v
}

// Instance builds a JSON value that matches a JSON Schema (or a Gemini
// OpenAPI-style schema with upper-case types): every property present,
// strings "fake <property>", the first enum value, numbers at their minimum
// or 1, one item per array.
func Instance(schema json.RawMessage) any {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return map[string]any{}
	}
	return instance(s, "value")
}

func instance(s map[string]any, name string) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if a, ok := alts[0].(map[string]any); ok {
				return instance(a, name)
			}
		}
	}
	typ := ""
	switch t := s["type"].(type) {
	case string:
		typ = strings.ToLower(t)
	case []any:
		for _, one := range t {
			if str, ok := one.(string); ok && strings.ToLower(str) != "null" {
				typ = strings.ToLower(str)
				break
			}
		}
	}
	if typ == "" {
		if _, ok := s["properties"]; ok {
			typ = "object"
		} else {
			typ = "string"
		}
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			if pm, ok := p.(map[string]any); ok {
				out[k] = instance(pm, k)
			}
		}
		return out
	case "array":
		items, _ := s["items"].(map[string]any)
		n := 1
		if m, ok := s["minItems"].(float64); ok && m > 1 {
			n = int(min(m, 100)) // a schema that asks for several gets them
		}
		out := make([]any, n)
		for i := range out {
			out[i] = instance(items, name)
		}
		return out
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return true
	default:
		return "fake " + name
	}
}

// AudioBytesPerSecond is the fakes' audio rate: duration = bytes / rate.
const AudioBytesPerSecond = 16000

// AudioSeconds is the duration the fakes report for audio of n bytes.
func AudioSeconds(n int) float64 { return float64(n) / AudioBytesPerSecond }

// Transcript is the text the fakes hear in audio of n bytes.
func Transcript(n int) string { return "fake transcript of " + strconv.Itoa(n) + " bytes" }

// PNGSize is the side of the fakes' square images.
const PNGSize = 64

// PNG is a deterministic, real image of the prompt and the image's index:
// a PNGSize square, its background colour (PNGColor) derived from both,
// with a diagonal band of the inverse colour, so what a pipeline makes of
// it (a render, a clip) can be checked pixel by pixel and two candidates
// differ.
func PNG(prompt string, i int) []byte {
	bg := PNGColor(prompt, i)
	band := color.RGBA{R: 255 - bg.R, G: 255 - bg.G, B: 255 - bg.B, A: 255}
	img := image.NewRGBA(image.Rect(0, 0, PNGSize, PNGSize))
	for y := range PNGSize {
		for x := range PNGSize {
			c := bg
			if d := x - y; d > -4 && d < 4 {
				c = band
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // an in-memory RGBA image always encodes
	return b.Bytes()
}

// PNGColor is the background colour of PNG(prompt, i).
func PNGColor(prompt string, i int) color.RGBA {
	h := fnv.New32a()
	h.Write([]byte(prompt + "#" + strconv.Itoa(i)))
	v := h.Sum32()
	return color.RGBA{R: uint8(v), G: uint8(v >> 8), B: uint8(v >> 16), A: 255}
}

// ImageOutputTokens is what the fakes report per generated image.
const ImageOutputTokens = 100
