package studio

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/platform/backend/domain/errs"
)

// The composition snapshot: what a renderer draws (a package of its own
// renders it; these types are its input). Positions and sizes are
// fractions of the frame from the top left, times milliseconds from the
// scene's start. The JSON Schema (snapshot.schema.json) is the contract the
// HTTP input is checked against; Validate adds what a schema cannot say
// (unique ids, times within their scene, fonts that exist).

// Snapshot is a composition version's content.
type Snapshot struct {
	FPS        int             `json:"fps,omitempty"`
	Resolution string          `json:"resolution,omitempty"`
	Fonts      []Font          `json:"fonts,omitempty"`
	Scenes     []SnapshotScene `json:"scenes"`
}

// Font is a family, optionally from a font asset of the workspace (a brand font).
type Font struct {
	FontID  string  `json:"fontId"`
	Family  string  `json:"family"`
	AssetID *string `json:"assetId,omitempty"`
	Weight  int     `json:"weight,omitempty"`
}

// SnapshotScene is one scene of the timeline.
type SnapshotScene struct {
	SceneID    string      `json:"sceneId"`
	DurationMs int         `json:"durationMs"`
	Background Background  `json:"background"`
	Layers     []Layer     `json:"layers,omitempty"`
	Transition *Transition `json:"transition,omitempty"`
}

// Background types.
const (
	BackgroundColor = "color"
	BackgroundAsset = "asset"
)

// Background is a colour (#RRGGBB) or an image or video asset.
type Background struct {
	Type    string `json:"type"`
	Color   string `json:"color,omitempty"`
	AssetID string `json:"assetId,omitempty"`
	Fit     string `json:"fit,omitempty"` // cover (default) or contain
}

// Layer types.
const (
	LayerText  = "text"
	LayerImage = "image"
	LayerVideo = "video"
)

// Layer is a text, image or video on top of the background, in order
// (later layers above earlier ones).
type Layer struct {
	Type    string `json:"type"`
	LayerID string `json:"layerId"`
	// Text layers.
	Text     string `json:"text,omitempty"`
	FontID   string `json:"fontId,omitempty"`
	FontSize int    `json:"fontSize,omitempty"`
	Color    string `json:"color,omitempty"`
	Align    string `json:"align,omitempty"`
	// Image and video layers.
	AssetID     string   `json:"assetId,omitempty"`
	Height      *float64 `json:"height,omitempty"`
	Fit         string   `json:"fit,omitempty"`
	Opacity     *float64 `json:"opacity,omitempty"`
	TrimStartMs int      `json:"trimStartMs,omitempty"`
	Muted       bool     `json:"muted,omitempty"`
	// Every layer.
	X       *float64 `json:"x,omitempty"`
	Y       *float64 `json:"y,omitempty"`
	Width   *float64 `json:"width,omitempty"`
	StartMs int      `json:"startMs,omitempty"`
	EndMs   *int     `json:"endMs,omitempty"` // null: the scene's end
}

// Transition types: into the next scene (after the last one, to black).
const (
	TransitionCut  = "cut"
	TransitionFade = "fade"
)

// Transition is how a scene gives way to the next.
type Transition struct {
	Type       string `json:"type"`
	DurationMs int    `json:"durationMs,omitempty"`
}

// Defaults a renderer applies to what a snapshot leaves out.
const (
	DefaultFPS        = 30
	DefaultResolution = "1080p"
	DefaultFontSize   = 64
	MaxTimelineMs     = 10 * 60 * 1000
)

// Frame is the size in pixels of a snapshot's frame for an aspect ratio.
func (s Snapshot) Frame(aspectRatio string) (width, height int) {
	short := map[string]int{"480p": 480, "720p": 720, "1080p": 1080}[s.Resolution]
	if short == 0 {
		short = 1080
	}
	long := short * 16 / 9
	if aspectRatio == AspectPortrait {
		return short, long
	}
	return long, short
}

// Duration is the timeline's length in milliseconds.
func (s Snapshot) Duration() int {
	total := 0
	for _, sc := range s.Scenes {
		total += sc.DurationMs
	}
	return total
}

// Assets are the asset ids the snapshot draws, with the JSON pointer of
// each reference (the caller checks they are assets of the workspace).
func (s Snapshot) Assets() map[string]string {
	out := map[string]string{}
	for i, f := range s.Fonts {
		if f.AssetID != nil {
			out[fmt.Sprintf("/fonts/%d/assetId", i)] = *f.AssetID
		}
	}
	for i, sc := range s.Scenes {
		if sc.Background.Type == BackgroundAsset {
			out[fmt.Sprintf("/scenes/%d/background/assetId", i)] = sc.Background.AssetID
		}
		for j, l := range sc.Layers {
			if l.AssetID != "" {
				out[fmt.Sprintf("/scenes/%d/layers/%d/assetId", i, j)] = l.AssetID
			}
		}
	}
	return out
}

// Validate checks what the schema cannot: unique scene, layer and font
// ids, layer times within their scene, a fade shorter than its scene, known
// fonts, the whole timeline at most 10 minutes. Pointers are relative to
// the snapshot (the caller prefixes "/snapshot").
func (s Snapshot) Validate() []errs.Field {
	var f fields
	fonts := map[string]bool{}
	for i, font := range s.Fonts {
		if fonts[font.FontID] {
			f.add(fmt.Sprintf("/fonts/%d/fontId", i), "is declared twice")
		}
		fonts[font.FontID] = true
	}
	scenes := map[string]bool{}
	for i, sc := range s.Scenes {
		at := fmt.Sprintf("/scenes/%d", i)
		if scenes[sc.SceneID] {
			f.add(at+"/sceneId", "appears twice")
		}
		scenes[sc.SceneID] = true
		if sc.Transition != nil && sc.Transition.Type == TransitionFade && sc.Transition.DurationMs > sc.DurationMs {
			f.add(at+"/transition/durationMs", "a fade must not outlast its scene")
		}
		layers := map[string]bool{}
		for j, l := range sc.Layers {
			lat := fmt.Sprintf("%s/layers/%d", at, j)
			if layers[l.LayerID] {
				f.add(lat+"/layerId", "appears twice in the scene")
			}
			layers[l.LayerID] = true
			end := sc.DurationMs
			if l.EndMs != nil {
				end = *l.EndMs
				if end > sc.DurationMs {
					f.add(lat+"/endMs", "must be within the scene")
				}
			}
			if l.StartMs >= end {
				f.add(lat+"/startMs", "must be before the layer's end")
			}
			if l.Type == LayerText && l.FontID != "" && !fonts[l.FontID] {
				f.add(lat+"/fontId", "is not declared in /fonts")
			}
			if l.Type == LayerText && trim(l.Text) == "" {
				f.add(lat+"/text", "must not be blank")
			}
		}
	}
	if s.Duration() > MaxTimelineMs {
		f.add("/scenes", "the timeline must be at most 10 minutes long")
	}
	return f
}

//go:embed snapshot.schema.json
var snapshotSchemaFile []byte

// SnapshotSchema is the snapshot's JSON Schema with its definitions
// inlined, so it can sit inside another schema (an action's input).
var SnapshotSchema = mustInline(snapshotSchemaFile)

func mustInline(raw []byte) json.RawMessage {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(err) // the embedded file is the repository's: a test loads it
	}
	defs, _ := doc["$defs"].(map[string]any)
	delete(doc, "$defs")
	delete(doc, "$schema")
	var inline func(v any) any
	inline = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && len(v) == 1 {
				return inline(defs[strings.TrimPrefix(ref, "#/$defs/")])
			}
			for k, m := range v {
				v[k] = inline(m)
			}
		case []any:
			for i, m := range v {
				v[i] = inline(m)
			}
		}
		return v
	}
	out, err := json.Marshal(inline(doc))
	if err != nil {
		panic(err)
	}
	return out
}
