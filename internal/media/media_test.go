package media

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests run the real ffmpeg (scripts/ffmpeg.sh installs Debian's).

var (
	red  = color.RGBA{R: 220, G: 30, B: 40, A: 255}
	blue = color.RGBA{R: 20, G: 60, B: 200, A: 255}
)

func fill(pix []byte, c color.RGBA) {
	for i := 0; i < len(pix); i += 4 {
		pix[i], pix[i+1], pix[i+2], pix[i+3] = c.R, c.G, c.B, c.A
	}
}

// twoColours encodes v.Frames frames: the first half red, the rest blue,
// each half sent as one run.
func twoColours(t *testing.T, f Format, v Video, progress func(int)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out"+f.Ext())
	e, err := Config{}.Start(context.Background(), f, v, path, progress)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Abort()
	half := v.Frames / 2
	for _, r := range []struct {
		c color.RGBA
		n int
	}{{red, half}, {blue, v.Frames - half}} {
		buf, err := e.Buffer()
		if err != nil {
			t.Fatal(err)
		}
		fill(buf, r.c)
		if err := e.Send(buf, r.n); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func near(t *testing.T, what string, got color.Color, want color.RGBA, tol int) {
	t.Helper()
	r, g, b, _ := got.RGBA()
	d := func(x uint32, y uint8) int { return max(int(x>>8)-int(y), int(y)-int(x>>8)) }
	if d(r, want.R) > tol || d(g, want.G) > tol || d(b, want.B) > tol {
		t.Errorf("%s: pixel %d,%d,%d, want %d,%d,%d (±%d)", what, r>>8, g>>8, b>>8, want.R, want.G, want.B, tol)
	}
}

// TestEncodeVideo: mp4 and mov decode as H.264 yuv420p of the frame size,
// last as long as the frames sent, and show each run's colour at its time.
func TestEncodeVideo(t *testing.T) {
	v := Video{Width: 320, Height: 180, FPS: 30, Frames: 60}
	for _, f := range []Format{MP4, MOV} {
		t.Run(string(f), func(t *testing.T) {
			var seen []int
			path := twoColours(t, f, v, func(p int) { seen = append(seen, p) })
			info, err := Config{}.Probe(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Codec != "h264" || info.PixFmt != "yuv420p" || info.Width != 320 || info.Height != 180 || info.Frames != 60 {
				t.Fatalf("probe: %+v", info)
			}
			if d := info.Duration - 2*time.Second; d < -40*time.Millisecond || d > 40*time.Millisecond {
				t.Errorf("duration %s, want 2s", info.Duration)
			}
			if want := map[Format]string{MP4: "mp4", MOV: "mov"}[f]; !strings.Contains(info.Container, want) {
				t.Errorf("container %q", info.Container)
			}
			for _, at := range []struct {
				t time.Duration
				c color.RGBA
			}{{500 * time.Millisecond, red}, {1500 * time.Millisecond, blue}} {
				img, err := Config{}.FrameAt(context.Background(), path, at.t)
				if err != nil {
					t.Fatal(err)
				}
				near(t, at.t.String(), img.At(160, 90), at.c, 6)
			}
			// Two runs of 30 frames each: progress moves while a run is
			// written (a still segment of a render is one run), not only
			// between runs.
			if len(seen) < 20 || seen[0] != 0 || seen[len(seen)-1] != 100 {
				t.Errorf("progress %v: want 0 .. 100 in steps while each run is written", seen)
			}
			for i := 1; i < len(seen); i++ {
				if seen[i] <= seen[i-1] {
					t.Errorf("progress %v goes back", seen)
				}
			}
		})
	}
}

// TestEncodeGIF: a GIF has one frame per frame sent, at the frame size.
func TestEncodeGIF(t *testing.T) {
	v := Video{Width: 160, Height: 90, FPS: 10, Frames: 15}
	path := twoColours(t, GIF, v, nil)
	info, err := Config{}.Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Codec != "gif" || info.Width != 160 || info.Height != 90 || info.Frames != 15 {
		t.Fatalf("probe: %+v", info)
	}
	img, err := Config{}.FrameAt(context.Background(), path, 1200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "1.2s", img.At(80, 45), blue, 24)
}

// TestEncodePNGSequence: a zip of numbered PNGs, one per frame, each of
// the frame size and its run's colour.
func TestEncodePNGSequence(t *testing.T) {
	v := Video{Width: 64, Height: 36, FPS: 30, Frames: 7}
	path := twoColours(t, PNGSequence, v, nil)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 7 {
		t.Fatalf("%d entries, want 7", len(zr.File))
	}
	for i, f := range zr.File {
		if f.Name != PNGSequenceName(i) {
			t.Fatalf("entry %d is %s, want %s", i, f.Name, PNGSequenceName(i))
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if img.Bounds() != image.Rect(0, 0, 64, 36) {
			t.Fatalf("%s: %v", f.Name, img.Bounds())
		}
		want := red
		if i >= 3 {
			want = blue
		}
		near(t, f.Name, img.At(10, 10), want, 0)
	}
	if zr.File[0].Name != "frame_00001.png" {
		t.Errorf("first entry %s", zr.File[0].Name)
	}
}

// started encodes a long stream in the background until it is stopped.
func started(t *testing.T, ctx context.Context, c Config, f Format) (*Encoder, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out"+f.Ext())
	e, err := c.Start(ctx, f, Video{Width: 640, Height: 360, FPS: 30, Frames: 100000}, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e, path
}

func pid(e *Encoder) int { return e.sink.(*ffmpegSink).cmd.Process.Pid }

func gone(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("ffmpeg (pid %d) still there after the encode stopped: %v", pid, err)
	}
}

// TestEncodeCancelKillsFFmpeg: cancelling the context stops the stream
// with the context's error, and no ffmpeg is left once Abort returns; the
// partial output is removed.
func TestEncodeCancelKillsFFmpeg(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, path := started(t, ctx, Config{}, MP4)
	p := pid(e)
	var err error
	for i := 0; err == nil; i++ {
		if i == 20 {
			cancel()
		}
		var buf []byte
		if buf, err = e.Buffer(); err == nil {
			fill(buf, red)
			err = e.Send(buf, 1)
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v, want context.Canceled", err)
	}
	e.Abort()
	gone(t, p)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("partial output left: %v", err)
	}
	if err := e.Close(); !errors.Is(err, context.Canceled) {
		t.Errorf("Close after Abort: %v", err)
	}
}

// TestEncodeTimeout: an encode that outlives Config.Timeout is killed and
// fails with ErrTimeout.
func TestEncodeTimeout(t *testing.T) {
	e, _ := started(t, context.Background(), Config{Timeout: 300 * time.Millisecond}, GIF)
	p := pid(e)
	deadline := time.Now().Add(10 * time.Second)
	var err error
	for err == nil && time.Now().Before(deadline) {
		var buf []byte
		if buf, err = e.Buffer(); err == nil {
			err = e.Send(buf, 1)
		}
	}
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
	e.Abort()
	gone(t, p)
}

// TestEncodeFailureIsShort: ffmpeg's failure comes back as an *Error whose
// message is its last words, bounded; the stream stops.
func TestEncodeFailureIsShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", "out.mp4")
	e, err := Config{}.Start(context.Background(), MP4, Video{Width: 64, Height: 64, FPS: 30, Frames: 30}, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		var buf []byte
		if buf, err = e.Buffer(); err == nil {
			err = e.Send(buf, 1)
		}
		if err == nil && e.sent == 30 {
			err = e.Close()
		}
	}
	var fe *Error
	if !errors.As(err, &fe) || !strings.Contains(fe.Detail, "No such file or directory") || len(fe.Error()) > maxDetail+40 {
		t.Fatalf("got %v, want ffmpeg's short reason", err)
	}
	e.Abort()
}

// TestEncodeStoppedShort: a stream closed before its last frame is refused
// and leaves no file.
func TestEncodeStoppedShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.mp4")
	e, err := Config{}.Start(context.Background(), MP4, Video{Width: 64, Height: 64, FPS: 30, Frames: 30}, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf, _ := e.Buffer()
	if err := e.Send(buf, 10); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err == nil || !strings.Contains(err.Error(), "after 10 of 30") {
		t.Fatalf("close: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output left: %v", err)
	}
}

// TestStartRefusesBadVideo: odd sizes for H.264, unknown formats, empty
// streams are refused before ffmpeg starts.
func TestStartRefusesBadVideo(t *testing.T) {
	for _, c := range []struct {
		f Format
		v Video
	}{
		{MP4, Video{Width: 63, Height: 64, FPS: 30, Frames: 1}},
		{"webm", Video{Width: 64, Height: 64, FPS: 30, Frames: 1}},
		{GIF, Video{Width: 64, Height: 64, FPS: 0, Frames: 1}},
		{GIF, Video{Width: 64, Height: 64, FPS: 30, Frames: 0}},
		{PNGSequence, Video{Width: 5000, Height: 5000, FPS: 30, Frames: 1}},
	} {
		if _, err := (Config{}).Start(context.Background(), c.f, c.v, filepath.Join(t.TempDir(), "x"), nil); err == nil {
			t.Errorf("%s %+v accepted", c.f, c.v)
		}
	}
}

// TestDecodeVideo: a clip decodes into frames of the box at the asked rate
// from the start time; past its end the last frame holds; contain leaves
// the box's margins transparent; Close ends ffmpeg.
func TestDecodeVideo(t *testing.T) {
	clip := twoColours(t, MP4, Video{Width: 320, Height: 180, FPS: 30, Frames: 60}, nil) // red 0-1 s, blue 1-2 s
	d, err := Config{}.DecodeVideo(context.Background(), clip, 100, 100, 10, 500*time.Millisecond, FitCover)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	pixel := func(f []byte, x, y int) color.RGBA {
		i := (y*100 + x) * 4
		return color.RGBA{f[i], f[i+1], f[i+2], f[i+3]}
	}
	for k := range 30 { // 3 s of output from a clip with 1.5 s left
		f, err := d.Frame()
		if err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		if len(f) != 100*100*4 {
			t.Fatalf("frame %d: %d bytes", k, len(f))
		}
		want := blue
		if k < 5 { // 0.5 s + k/10 < 1 s
			want = red
		}
		if k != 5 { // the frame at the cut may be either
			near(t, fmt.Sprintf("frame %d", k), pixel(f, 50, 50), want, 8)
		}
		d.Advance()
	}
	d.Close()

	c, err := Config{}.DecodeVideo(context.Background(), clip, 100, 100, 10, 0, FitContain)
	if err != nil {
		t.Fatal(err)
	}
	p := c.cmd.Process.Pid
	f, err := c.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if a := pixel(f, 50, 5).A; a != 0 {
		t.Errorf("contain: the margin has alpha %d", a)
	}
	near(t, "contain: the picture", pixel(f, 50, 50), red, 8)
	c.Close()
	gone(t, p)
}
