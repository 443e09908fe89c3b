package render

import (
	"fmt"
	"slices"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media"
)

// GIF bounds: a GIF is a preview-sized loop, not a master (a 1080x1920 GIF
// at 30 fps is tens of megabytes a second).
const (
	GIFMaxFPS       = 15
	GIFMaxShortSide = 480
)

// plan is the timeline in frames: frame k shows time k*1000/fps ms, and
// belongs to the scene whose [start, end) holds that time.
type plan struct {
	w, h, fps, frames int
	// px is output pixels per snapshot pixel (font sizes, 1 at full size).
	px     float64
	scenes []scenePlan
}

type scenePlan struct {
	index      int
	start, end int // frames
	startMs    int
	endMs      int
	layers     []layerPlan
	fadeFrom   int // first frame of the fade out of this scene; end when none
	fadeMs     int
	nextScene  int // the scene the fade goes to; -1: black
	hasFadeOut bool
}

type layerPlan struct {
	index      int
	start, end int // frames, within the scene's
}

// frameAt is the first frame whose time is at or after ms.
func frameAt(ms, fps int) int { return (ms*fps + 999) / 1000 }

// frameMs is the time frame k shows.
func frameMs(k, fps int) float64 { return float64(k) * 1000 / float64(fps) }

// newPlan lays the snapshot out for a format at a scale (0 or 1: full size).
func newPlan(s domain.Snapshot, aspect string, f media.Format, scale float64) (plan, error) {
	if aspect != domain.AspectPortrait && aspect != domain.AspectLandscape {
		return plan{}, unrenderable("/aspectRatio", "unknown aspect ratio %q", aspect)
	}
	if !f.Known() {
		return plan{}, unrenderable("/outputFormat", "unknown output format %q", f)
	}
	if scale == 0 {
		scale = 1
	}
	if scale < 0.05 || scale > 1 {
		return plan{}, unrenderable("/scale", "the scale must be 0.05 to 1, not %g", scale)
	}
	if len(s.Scenes) == 0 {
		return plan{}, unrenderable("/snapshot/scenes", "a composition needs at least one scene")
	}
	if s.Duration() > domain.MaxTimelineMs {
		return plan{}, unrenderable("/snapshot/scenes", "the timeline is longer than %d minutes", domain.MaxTimelineMs/60000)
	}
	fps := s.FPS
	if fps == 0 {
		fps = domain.DefaultFPS
	}
	fullW, fullH := s.Frame(aspect)
	if f == media.GIF {
		fps = min(fps, GIFMaxFPS)
		scale = min(scale, float64(GIFMaxShortSide)/float64(min(fullW, fullH)))
	}
	p := plan{fps: fps, w: even(float64(fullW) * scale), h: even(float64(fullH) * scale)}
	p.px = float64(p.w) / float64(fullW)
	total := s.Duration()
	p.frames = frameAt(total, fps)
	if p.frames < 1 {
		return plan{}, unrenderable("/snapshot/scenes", "the timeline is shorter than one frame")
	}
	at := 0
	for i, sc := range s.Scenes {
		sp := scenePlan{index: i, startMs: at, endMs: at + sc.DurationMs, start: frameAt(at, fps), nextScene: -1}
		sp.end = min(frameAt(sp.endMs, fps), p.frames)
		if i == len(s.Scenes)-1 {
			sp.end = p.frames
		}
		sp.fadeFrom = sp.end
		if t := sc.Transition; t != nil && t.Type == domain.TransitionFade && t.DurationMs > 0 {
			ms := min(t.DurationMs, sc.DurationMs)
			sp.fadeFrom = min(max(frameAt(sp.endMs-ms, fps), sp.start), sp.end)
			sp.fadeMs, sp.hasFadeOut = ms, true
			if i+1 < len(s.Scenes) {
				sp.nextScene = i + 1
			}
		}
		for j, l := range sc.Layers {
			end := sc.DurationMs
			if l.EndMs != nil {
				end = min(*l.EndMs, sc.DurationMs)
			}
			lp := layerPlan{index: j, start: max(frameAt(at+l.StartMs, fps), sp.start), end: min(frameAt(at+end, fps), sp.end)}
			if lp.start < lp.end {
				sp.layers = append(sp.layers, lp)
			}
		}
		p.scenes = append(p.scenes, sp)
		at = sp.endMs
	}
	return p, nil
}

// even rounds a size to an even number of pixels, at least 2 (yuv420p).
func even(v float64) int { return max(int(v/2+0.5)*2, 2) }

// segment is a stretch of a scene where the same layers show: static
// (one frame repeated) unless it lies in the scene's fade.
type segment struct {
	from, to int   // frames
	visible  []int // indices into scenePlan.layers
	fading   bool
}

// segments cuts a scene at every layer's start and end and at its fade.
func (sp scenePlan) segments() []segment {
	cuts := []int{sp.start, sp.end, sp.fadeFrom}
	for _, l := range sp.layers {
		cuts = append(cuts, l.start, l.end)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []segment
	for i := 0; i+1 < len(cuts); i++ {
		from, to := cuts[i], cuts[i+1]
		if from < sp.start || to > sp.end || from == to {
			continue
		}
		seg := segment{from: from, to: to, fading: from >= sp.fadeFrom}
		for j, l := range sp.layers {
			if l.start <= from && from < l.end {
				seg.visible = append(seg.visible, j)
			}
		}
		out = append(out, seg)
	}
	return out
}

// fadeAt is how far frame k is into the scene's fade, 0..1.
func (sp scenePlan) fadeAt(k, fps int) float64 {
	t := (frameMs(k, fps) - float64(sp.endMs-sp.fadeMs)) / float64(sp.fadeMs)
	return min(max(t, 0), 1)
}

func (sp scenePlan) String() string {
	return fmt.Sprintf("scene %d frames [%d,%d) fade from %d", sp.index, sp.start, sp.end, sp.fadeFrom)
}
