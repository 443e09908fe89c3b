package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Error is a failed ffmpeg or ffprobe run, with its last words (stderr,
// bounded) as a short message fit for a job's failure reason.
type Error struct {
	Tool   string // ffmpeg or ffprobe
	Detail string // the last non-empty lines of stderr, at most maxDetail bytes
	Err    error  // the exec error
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%s failed: %v", e.Tool, e.Err)
	}
	return fmt.Sprintf("%s failed: %s", e.Tool, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }

const (
	stderrKeep = 8 << 10 // bytes of stderr kept (its end)
	maxDetail  = 300     // bytes of it an Error shows
)

// tail keeps the last stderrKeep bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrKeep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// detail is the end of stderr, a few lines joined, bounded.
func (t *tail) detail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(string(t.buf), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	out := ""
	for i := len(lines) - 1; i >= 0; i-- {
		next := lines[i]
		if out != "" {
			next += "; " + out
		}
		if len(next) > maxDetail {
			if out == "" {
				out = "..." + next[len(next)-maxDetail+3:]
			}
			break
		}
		out = next
	}
	return strings.ToValidUTF8(out, "")
}

// command is a bounded ffmpeg or ffprobe: killed with ctx, its pipes
// abandoned a few seconds after that, stderr kept short.
func command(ctx context.Context, bin string, args ...string) (*exec.Cmd, *tail) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second
	errs := &tail{}
	cmd.Stderr = errs
	return cmd, errs
}

func runError(tool string, errs *tail, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Tool: tool, Detail: errs.detail(), Err: err}
}

// ffmpegSink pipes raw RGBA frames into ffmpeg's stdin.
type ffmpegSink struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	errs  *tail
}

func startFFmpeg(ctx context.Context, c Config, v Video, output []string, path string) (*ffmpegSink, error) {
	args := []string{"-hide_banner", "-nostdin", "-loglevel", "error", "-filter_threads", strconv.Itoa(c.Threads),
		"-f", "rawvideo", "-pix_fmt", "rgba", "-video_size", fmt.Sprintf("%dx%d", v.Width, v.Height),
		"-framerate", strconv.Itoa(v.FPS), "-i", "pipe:0", "-an"}
	args = append(args, output...)
	args = append(args, "-y", path)
	cmd, errs := command(ctx, c.FFmpeg, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, &Error{Tool: "ffmpeg", Err: err}
	}
	return &ffmpegSink{cmd: cmd, stdin: stdin, errs: errs}, nil
}

func (s *ffmpegSink) frames(pix []byte, n int, _ bool) error {
	for range n {
		if _, err := s.stdin.Write(pix); err != nil {
			return err
		}
	}
	return nil
}

func (s *ffmpegSink) finish() error {
	cerr := s.stdin.Close()
	if err := runError("ffmpeg", s.errs, s.cmd.Wait()); err != nil {
		return err
	}
	if cerr != nil && !errors.Is(cerr, io.ErrClosedPipe) {
		return cerr
	}
	return nil
}
