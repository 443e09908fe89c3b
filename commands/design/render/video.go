package render

import (
	"context"
	"image"

	"github.com/tdewolff/canvas"

	design "github.com/platform/backend/domain/design"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/internal/media/raster"
)

// Sink takes a clip's frames: *media.Encoder is one. Send hands pix over
// for n consecutive frames; Buffer gives a buffer to draw the next into.
type Sink interface {
	Buffer() ([]byte, error)
	Send(pix []byte, n int) error
}

// video encodes every page in order into an mp4 at path.
func (r Renderer) video(ctx context.Context, s *scene, path string, progress func(int)) (media.Video, error) {
	v := s.stream()
	enc, err := r.Media.Start(ctx, media.MP4, v, path, progress)
	if err != nil {
		return media.Video{}, err
	}
	defer enc.Abort()
	if err := s.frames(ctx, enc); err != nil {
		return media.Video{}, err
	}
	return v, enc.Close()
}

// Draw draws an mp4's frames into sink without encoding them (the
// benchmark's raw ceiling keeps them). It returns the stream drawn.
func (r Renderer) Draw(ctx context.Context, req Request, sink Sink) (media.Video, error) {
	req.Format = design.FormatMP4
	s, err := r.prepare(ctx, req)
	if err != nil {
		return media.Video{}, err
	}
	return s.stream(), s.frames(ctx, sink)
}

// stream is the clip: frame k shows time k/fps of the pages played in order.
func (s *scene) stream() media.Video {
	fps := s.req.Content.FPS
	if fps == 0 {
		fps = design.DefaultFPS
	}
	total := s.req.Content.Duration()
	return media.Video{Width: s.w, Height: s.h, FPS: fps, Frames: max((total*fps+999)/1000, 1)}
}

// frames draws the clip into the sink. Per page, its background and the
// layers below its first animated one are drawn once (the base); each
// distinct frame is the base copied and the other layers drawn over it as
// the keyframes place them; a run of frames where nothing moves is one
// frame sent for its length.
func (s *scene) frames(ctx context.Context, sink Sink) error {
	v := s.stream()
	current := -1
	var base *image.RGBA
	var top []*node
	for k := 0; k < v.Frames; {
		ms := k * 1000 / v.FPS
		i, local := s.pageAt(ms)
		page := s.pages[i]
		if i != current {
			current = i
			base, top = s.base(page)
		}
		buf, err := sink.Buffer()
		if err != nil {
			return err
		}
		copy(buf, base.Pix)
		if len(top) > 0 {
			frame := raster.FrameOf(buf, s.w, s.h)
			s.draw(canvas.NewContext(newRaster(frame)), page, top, local, false)
		}
		n := 1
		for k+n < v.Frames {
			next := (k + n) * 1000 / v.FPS
			j, nextLocal := s.pageAt(next)
			if j != i || moves(top, local, nextLocal) {
				break
			}
			n++
		}
		if err := sink.Send(buf, n); err != nil {
			return err
		}
		k += n
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// pageAt is the page showing at ms of the clip and the time into it (the
// last page holds past the end).
func (s *scene) pageAt(ms int) (int, int) {
	at := 0
	for i, p := range s.pages {
		d := p.page.DurationMs
		if ms < at+d || i == len(s.pages)-1 {
			return i, ms - at
		}
		at += d
	}
	return 0, ms
}

// base draws a page's background and its layers below the first animated
// one; the rest are drawn per frame.
func (s *scene) base(page *pageScene) (*image.RGBA, []*node) {
	first := len(page.nodes)
	for i, n := range page.nodes {
		if design.Animated([]design.Layer{n.l}) {
			first = i
			break
		}
	}
	img := raster.NewFrame(s.w, s.h)
	if page.background == nil {
		raster.Fill(img, white)
	}
	s.draw(canvas.NewContext(newRaster(img)), page, page.nodes[:first], 0, true)
	return img, page.nodes[first:]
}

// moves reports whether the layers drawn per frame differ between two
// times of their page.
func moves(nodes []*node, a, b int) bool {
	layers := make([]design.Layer, len(nodes))
	for i, n := range nodes {
		layers[i] = n.l
	}
	return design.Moves(layers, a, b)
}
