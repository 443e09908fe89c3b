package render

import (
	"slices"
	"testing"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media"
)

// TestPlanStaticScenesAreOneRun: a scene where nothing changes is one
// segment however long (one frame drawn, repeated); layers cut a scene where
// they start and end; a fade is its own segment at the scene's end.
func TestPlanStaticScenesAreOneRun(t *testing.T) {
	s, _ := threeScenes()
	s.Scenes = append([]domain.SnapshotScene{{SceneID: "long", DurationMs: 60000,
		Background: domain.Background{Type: domain.BackgroundColor, Color: "#000000"}}}, s.Scenes...)
	p, err := newPlan(s, domain.AspectPortrait, media.MP4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.frames != 63*30 || p.w != 1080 || p.h != 1920 {
		t.Fatalf("plan %dx%d, %d frames", p.w, p.h, p.frames)
	}
	type seg struct {
		from, to int
		visible  []int
		fading   bool
	}
	var got [][]seg
	for _, sp := range p.scenes {
		var ss []seg
		for _, g := range sp.segments() {
			ss = append(ss, seg{g.from, g.to, g.visible, g.fading})
		}
		got = append(got, ss)
	}
	want := [][]seg{
		{{0, 1800, nil, false}},
		{{1800, 1830, []int{0}, false}},
		// product: 1830..1875; the logo from 500 ms (1845); the fade from 2000 ms of 2500 (1860).
		{{1830, 1845, nil, false}, {1845, 1860, []int{0}, false}, {1860, 1875, []int{0}, true}},
		{{1875, 1890, nil, false}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if !slices.EqualFunc(got[i], want[i], func(a, b seg) bool {
			return a.from == b.from && a.to == b.to && a.fading == b.fading && slices.Equal(a.visible, b.visible)
		}) {
			t.Errorf("scene %d: %v, want %v", i, got[i], want[i])
		}
	}
	product := p.scenes[2]
	if a, b := product.fadeAt(1860, 30), product.fadeAt(1874, 30); a != 0 || b < 0.9 || b >= 1 {
		t.Errorf("fade %g .. %g", a, b)
	}
}

// TestPlanFormatsAndScale: GIF caps fps and size; scale shrinks to even
// sizes; landscape swaps sides; out-of-range scales are refused.
func TestPlanFormatsAndScale(t *testing.T) {
	s, _ := threeScenes()
	for _, c := range []struct {
		aspect      string
		f           media.Format
		scale       float64
		w, h, fps   int
		frames      int
		refuse      bool
		fontPxRatio float64
	}{
		{domain.AspectPortrait, media.GIF, 0, 480, 854, 15, 45, false, 480.0 / 1080},
		{domain.AspectLandscape, media.MP4, 0.25, 480, 270, 30, 90, false, 0.25},
		{domain.AspectLandscape, media.MP4, 0.33, 634, 356, 30, 90, false, 634.0 / 1920},
		{domain.AspectLandscape, media.MP4, 1.5, 0, 0, 0, 0, true, 0},
		{"square", media.MP4, 1, 0, 0, 0, 0, true, 0},
		{domain.AspectPortrait, "webm", 1, 0, 0, 0, 0, true, 0},
	} {
		p, err := newPlan(s, c.aspect, c.f, c.scale)
		if c.refuse {
			if err == nil {
				t.Errorf("%+v accepted", c)
			}
			continue
		}
		if err != nil || p.w != c.w || p.h != c.h || p.fps != c.fps || p.frames != c.frames || p.px != c.fontPxRatio {
			t.Errorf("%s %s %g: %dx%d %d fps %d frames px %g (%v)", c.aspect, c.f, c.scale, p.w, p.h, p.fps, p.frames, p.px, err)
		}
	}
}
