// Package render draws a studio composition snapshot into a video or image
// file: the platform's own renderer (render jobs with provider "platform").
// Frames are rasterized in Go (internal/media/raster) and piped to ffmpeg
// (internal/media) as they are drawn; a stretch where nothing moves is drawn
// once and repeated. The rules (what each layer does, defaults, limits) are
// in docs/decisions.md, "Studio: rendering".
//
// It lives beside the studio's commands, not in domain/studio (which is
// pure: no I/O, and this runs ffmpeg), nor in internal/media (which imports
// no context: the design service's renderer sits beside its own commands
// on the same media and raster packages).
package render

import (
	"context"
	"image"
	"time"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/internal/media/raster"
)

// Request is one render.
type Request struct {
	Snapshot    domain.Snapshot
	AspectRatio string
	Format      media.Format
	// Scale shrinks the frame for previews: 0 or 1 is full size (the
	// snapshot's resolution), 0.25 a quarter of each side. GIFs are capped
	// further (GIFMaxShortSide, GIFMaxFPS).
	Scale float64
}

// Result describes the file written.
type Result struct {
	Width, Height int
	FPS           int
	Frames        int
	Duration      time.Duration
	ContentType   string
}

// Renderer renders compositions. Its zero Media is the defaults.
type Renderer struct {
	Media  media.Config
	Assets Assets
}

// job is one render's state.
type job struct {
	snapshot domain.Snapshot
	plan     plan
	media    media.Config
	loader   Assets
	fonts    fonts
	assets   assets
	scenes   map[int]*scene
}

// close ends the decoders still open and removes the render's files.
func (j *job) close() {
	for i, s := range j.scenes {
		s.close()
		delete(j.scenes, i)
	}
	j.assets.remove()
}

// Render writes req to path (the caller uploads it and removes it).
// progress, when not nil, is called with 0..100 as frames are encoded
// (from the encoder's goroutine). Cancelling ctx stops ffmpeg; path is then
// removed. Errors wrapping ErrUnrenderable are the composition's fault.
func (r Renderer) Render(ctx context.Context, req Request, path string, progress func(int)) (Result, error) {
	j, v, err := r.start(ctx, req)
	if err != nil {
		return Result{}, err
	}
	defer j.close()
	enc, err := r.Media.Start(ctx, req.Format, v, path, progress)
	if err != nil {
		return Result{}, err
	}
	defer enc.Abort()
	if err := j.frames(ctx, enc); err != nil {
		return Result{}, err
	}
	if err := enc.Close(); err != nil {
		return Result{}, err
	}
	return Result{Width: v.Width, Height: v.Height, FPS: v.FPS, Frames: v.Frames, ContentType: req.Format.ContentType(),
		Duration: time.Duration(v.Frames) * time.Second / time.Duration(v.FPS)}, nil
}

// Sink takes a render's frames: *media.Encoder is one. Send hands pix over
// for n consecutive frames; Buffer gives a buffer to draw the next into.
type Sink interface {
	Buffer() ([]byte, error)
	Send(pix []byte, n int) error
}

// Draw draws req's frames into sink without encoding them (the benchmark's
// raw ceiling keeps them; a preview could show one). It returns the stream
// drawn.
func (r Renderer) Draw(ctx context.Context, req Request, sink Sink) (media.Video, error) {
	j, v, err := r.start(ctx, req)
	if err != nil {
		return media.Video{}, err
	}
	defer j.close()
	return v, j.frames(ctx, sink)
}

// start checks and lays out a request, loads its fonts and draws its first
// scene: a composition that cannot be drawn at all fails before ffmpeg
// starts.
func (r Renderer) start(ctx context.Context, req Request) (*job, media.Video, error) {
	if fields := req.Snapshot.Validate(); len(fields) > 0 {
		return nil, media.Video{}, unrenderable("/snapshot"+fields[0].Pointer, "%s", fields[0].Detail)
	}
	p, err := newPlan(req.Snapshot, req.AspectRatio, req.Format, req.Scale)
	if err != nil {
		return nil, media.Video{}, err
	}
	fs, err := loadFonts(ctx, r.Assets, req.Snapshot)
	if err != nil {
		return nil, media.Video{}, err
	}
	j := &job{snapshot: req.Snapshot, plan: p, media: r.Media, loader: r.Assets, fonts: fs, scenes: map[int]*scene{},
		assets: assets{decoded: map[string]image.Image{}, fitted: map[fitKey]fitted{}, videos: map[string]string{}}}
	if _, err := j.scene(ctx, 0); err != nil {
		j.close()
		return nil, media.Video{}, err
	}
	return j, media.Video{Width: p.w, Height: p.h, FPS: p.fps, Frames: p.frames}, nil
}

// scene is scene i drawn, once per render (kept until the scene is over).
func (j *job) scene(ctx context.Context, i int) (*scene, error) {
	if s, ok := j.scenes[i]; ok {
		return s, nil
	}
	s, err := j.prepare(ctx, i)
	if err != nil {
		return nil, err
	}
	j.scenes[i] = s
	return s, nil
}

// frames draws the timeline into the sink, scene by scene and segment by
// segment: a segment where nothing moves is one frame sent for its length; a
// segment showing a video is drawn frame by frame; a fade is mixed frame by
// frame between the scene and the next scene's first frame (black after the
// last scene).
func (j *job) frames(ctx context.Context, sink Sink) error {
	w, h := j.plan.w, j.plan.h
	var from, to *image.RGBA // a fade's ends
	for i, sp := range j.plan.scenes {
		s, err := j.scene(ctx, i)
		if err != nil {
			return err
		}
		for _, seg := range sp.segments() {
			moving := s.moving(seg.visible)
			if seg.fading && from == nil {
				from, to = raster.NewFrame(w, h), raster.NewFrame(w, h)
			}
			if seg.fading {
				if err := j.first(ctx, sp.nextScene, to); err != nil {
					return err
				}
			}
			for k := seg.from; k < seg.to; {
				n := 1
				if !moving && !seg.fading {
					n = seg.to - seg.from
				}
				buf, err := sink.Buffer()
				if err != nil {
					return err
				}
				if !seg.fading {
					err = s.compose(ctx, j, raster.FrameOf(buf, w, h), seg.visible)
				} else {
					if moving || k == seg.from {
						err = s.compose(ctx, j, from, seg.visible)
					}
					if err == nil {
						err = raster.Mix(buf, from.Pix, to.Pix, sp.fadeAt(k, j.plan.fps))
					}
				}
				if err != nil {
					return err
				}
				if err := sink.Send(buf, n); err != nil {
					return err
				}
				s.advance(seg.visible)
				k += n
			}
		}
		s.close()
		delete(j.scenes, i)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// first draws scene i's first frame into dst (its videos at their first
// frame, not advanced), or black when i is -1.
func (j *job) first(ctx context.Context, i int, dst *image.RGBA) error {
	if i < 0 {
		raster.Fill(dst, defaultBackground)
		return nil
	}
	s, err := j.scene(ctx, i)
	if err != nil {
		return err
	}
	var visible []int
	if segs := s.plan.segments(); len(segs) > 0 {
		visible = segs[0].visible
	}
	return s.compose(ctx, j, dst, visible)
}
