// Package render draws a governed design natively in Go, from its model:
// every layer becomes tdewolff/canvas paths, shaped text and images, which
// canvas writes as SVG (the kit's fonts embedded in it) or rasterizes for
// PNG and JPEG; an mp4 is the frames of every page, drawn as the keyframes
// move them, piped to ffmpeg (internal/media). No browser is involved.
//
// It lives beside the design service's commands (it reads files and runs
// ffmpeg, so not in domain/design); the media and raster packages under it
// are the platform's, shared with the studio's renderer. The rules (what
// each layer draws, defaults, limits) are in docs/design.md.
package render

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/svg"

	"github.com/platform/backend/domain/brands"
	design "github.com/platform/backend/domain/design"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/internal/media/raster"
)

// Files loads what a design names: its kit version's fonts and logos, and
// the images uploaded to its workspace (the caller binds it to the
// design's workspace). A missing file is an error; the renderer reports it
// as unrenderable at the member that names it.
type Files interface {
	Font(ctx context.Context, kit brands.Version, f brands.Font) ([]byte, error)
	Logo(ctx context.Context, kit brands.Version, l brands.Logo) ([]byte, error)
	Asset(ctx context.Context, assetID string) ([]byte, error)
}

// Request is one export.
type Request struct {
	Content design.Content
	Kit     brands.Version
	Format  string
	// PageID and AtMs are the page and time a still shows (default: the
	// first page, at 0).
	PageID  string
	AtMs    int
	Scale   float64
	Quality int
}

// Result describes the file written.
type Result struct {
	Width, Height int
	Frames        int
	DurationMs    int
	ContentType   string
}

// Renderer renders designs. Its zero Media is the defaults.
type Renderer struct {
	Media media.Config
	Files Files
}

// ErrUnrenderable marks a design this renderer cannot draw however often
// it tries (a file of the wrong kind, a font or image that does not parse,
// path data that does not): the export fails at once instead of retrying.
var ErrUnrenderable = errors.New("unrenderable design")

// Error is an unrenderable design: where (a JSON pointer into the design)
// and why, short enough for a job's failure reason.
type Error struct {
	Pointer string
	Reason  string
}

func (e *Error) Error() string { return e.Pointer + ": " + e.Reason }

func (e *Error) Is(target error) bool { return target == ErrUnrenderable }

func unrenderable(pointer, format string, args ...any) error {
	return &Error{Pointer: pointer, Reason: fmt.Sprintf(format, args...)}
}

// white is the matte of formats without alpha (jpeg, mp4) under a page
// without a background.
var white = color.RGBA{R: 255, G: 255, B: 255, A: 255}

// Render writes the export to path (the caller stores it and removes it).
// progress, when not nil, is called with 0..100 (an mp4's frames as they
// are encoded). Errors wrapping ErrUnrenderable are the design's fault.
func (r Renderer) Render(ctx context.Context, req Request, path string, progress func(int)) (Result, error) {
	if progress == nil {
		progress = func(int) {}
	}
	s, err := r.prepare(ctx, req)
	if err != nil {
		return Result{}, err
	}
	res := Result{Width: s.w, Height: s.h, ContentType: design.ContentTypes[req.Format]}
	if req.Format == design.FormatMP4 {
		v, err := r.video(ctx, s, path, progress)
		res.Frames, res.DurationMs = v.Frames, req.Content.Duration()
		return res, err
	}
	page, err := s.page(req.PageID)
	if err != nil {
		return Result{}, err
	}
	progress(0)
	if err := writeStill(s, page, req, path); err != nil {
		_ = os.Remove(path)
		return Result{}, err
	}
	progress(100)
	return res, nil
}

// Still draws a page at a time into an RGBA image (a preview; the PNG
// export's pixels).
func (r Renderer) Still(ctx context.Context, req Request) (*image.RGBA, error) {
	req.Format = design.FormatPNG
	s, err := r.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	page, err := s.page(req.PageID)
	if err != nil {
		return nil, err
	}
	return s.raster(page, req.AtMs, nil), nil
}

func writeStill(s *scene, page *pageScene, req Request, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	switch req.Format {
	case design.FormatSVG:
		c := s.canvas(page, req.AtMs)
		out := svg.New(w, float64(s.w), float64(s.h), &svg.Options{EmbedFonts: true, SizeUnits: "px", ImageEncoding: canvas.Lossless})
		c.RenderTo(out)
		err = out.Close()
	case design.FormatPNG:
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, s.raster(page, req.AtMs, nil))
	case design.FormatJPEG:
		q := req.Quality
		if q == 0 {
			q = design.DefaultQuality
		}
		err = jpeg.Encode(w, s.raster(page, req.AtMs, &white), &jpeg.Options{Quality: q})
	default:
		err = fmt.Errorf("render: format %q", req.Format)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// raster draws a page at ms into a new frame of the export's size, over
// matte when the page has no background and the format no alpha.
func (s *scene) raster(page *pageScene, ms int, matte *color.RGBA) *image.RGBA {
	img := raster.NewFrame(s.w, s.h)
	if page.background == nil && matte != nil {
		raster.Fill(img, *matte)
	}
	s.canvas(page, ms).RenderTo(newRaster(img))
	return img
}
