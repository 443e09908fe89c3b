package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"
)

// Decoder reads a video file as RGBA frames of a box, at a frame rate, from
// a start time: what a video layer shows, one frame per output frame. Past
// the clip's end it holds the last frame. It runs one ffmpeg (one thread),
// killed by Close or by its context.
type Decoder struct {
	cmd    *exec.Cmd
	out    io.ReadCloser
	errs   *tail
	cancel context.CancelFunc
	size   int
	cur    []byte
	next   []byte
	read   bool // cur holds the frame of the current position
	ended  bool
	closed bool
}

// Fit modes of a decoded video in its box.
const (
	FitCover   = "cover"   // fill the box, cropping centred
	FitContain = "contain" // all of it, centred, transparent around
)

// DecodeVideo starts decoding path into w x h frames at fps from start.
func (c Config) DecodeVideo(ctx context.Context, path string, w, h, fps int, start time.Duration, fit string) (*Decoder, error) {
	c = c.WithDefaults()
	if w < 1 || h < 1 || w*h > c.MaxPixels || fps < 1 || fps > 120 || start < 0 {
		return nil, fmt.Errorf("media: decode to %dx%d at %d fps from %s", w, h, fps, start)
	}
	box := fmt.Sprintf("%d:%d", w, h)
	scale := "scale=" + box + ":force_original_aspect_ratio=increase,crop=" + box
	if fit == FitContain {
		scale = "scale=" + box + ":force_original_aspect_ratio=decrease,format=rgba,pad=" + box + ":(ow-iw)/2:(oh-ih)/2:color=black@0"
	}
	dctx, cancel := context.WithTimeoutCause(ctx, c.Timeout, ErrTimeout)
	cmd, errs := command(dctx, c.FFmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", "-threads", "1", "-filter_threads", "1",
		"-ss", strconv.FormatFloat(start.Seconds(), 'f', 3, 64), "-i", path, "-an", "-sn",
		"-vf", "fps="+strconv.Itoa(fps)+","+scale+",format=rgba", "-f", "rawvideo", "-pix_fmt", "rgba", "pipe:1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, &Error{Tool: "ffmpeg", Err: err}
	}
	return &Decoder{cmd: cmd, out: out, errs: errs, cancel: cancel, size: w * h * 4}, nil
}

// Frame is the frame at the current position (valid until Advance). A clip
// with no frame at all is an error.
func (d *Decoder) Frame() ([]byte, error) {
	if d.closed {
		return nil, errors.New("media: decoder closed")
	}
	if d.read {
		return d.cur, nil
	}
	if !d.ended {
		if d.next == nil {
			d.next = make([]byte, d.size)
		}
		_, err := io.ReadFull(d.out, d.next)
		switch {
		case err == nil:
			d.cur, d.next = d.next, d.cur
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			d.ended = true
			if werr := d.wait(); werr != nil {
				return nil, werr
			}
		default:
			return nil, err
		}
	}
	if d.cur == nil {
		return nil, errors.New("media: the video has no frame from its start time on")
	}
	d.read = true
	return d.cur, nil
}

// Advance moves to the next frame.
func (d *Decoder) Advance() { d.read = false }

func (d *Decoder) wait() error {
	err := runError("ffmpeg", d.errs, d.cmd.Wait())
	d.cancel()
	return err
}

// Close stops the decoder: ffmpeg is killed and waited for.
func (d *Decoder) Close() {
	if d.closed {
		return
	}
	d.closed = true
	if !d.ended {
		d.cancel()
		_ = d.out.Close()
		_ = d.cmd.Wait()
	}
	d.cancel()
}
