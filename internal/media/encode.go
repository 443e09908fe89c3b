package media

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
)

// ErrTimeout is the cause of an encode that outlived Config.Timeout.
var ErrTimeout = errors.New("media: the encode took longer than its time limit")

// sink is where frames go: ffmpeg's stdin, or the Go PNG zip.
type sink interface {
	// frames writes pix n times (it may not keep pix after returning);
	// again says pix is the previous call's frame once more (a long run
	// written in parts, for progress), so a sink may reuse what it made of it.
	frames(pix []byte, n int, again bool) error
	// finish ends the output and reports how it went.
	finish() error
}

type run struct {
	pix []byte
	n   int
}

// Encoder writes one output file from a stream of frames. Buffer, Send,
// Close and Abort are for one goroutine (the producer); the encoder's own
// goroutine writes what Send queued.
type Encoder struct {
	video    Video
	path     string
	progress func(int)

	ctx    context.Context
	cancel context.CancelFunc
	sink   sink

	free   chan []byte
	queue  chan run
	done   chan struct{}
	failed chan struct{} // closed once err is set
	err    error         // the writer's, read after failed or done

	limit  int // buffers Buffer may make
	made   int
	sent   int
	over   bool
	once   sync.Once
	result error
}

// Start begins an encode of video into path in format f. progress, when
// not nil, is called with 0 at once, then from the encoder's goroutine with
// 1..99 as frames are written, and with 100 by Close once the file is
// complete; calls never overlap. Cancelling ctx, or the
// configured time limit, kills ffmpeg; the caller still calls Close or
// Abort, which wait for it. A failed or aborted encode removes path.
func (c Config) Start(ctx context.Context, f Format, v Video, path string, progress func(int)) (*Encoder, error) {
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := v.check(c, f); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(int) {}
	}
	ectx, cancel := context.WithTimeoutCause(ctx, c.Timeout, ErrTimeout)
	var (
		s   sink
		err error
	)
	if out := formats[f].output; out != nil {
		s, err = startFFmpeg(ectx, c, v, out(c, v), path)
	} else {
		s, err = newPNGZip(ectx, v, path)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	e := &Encoder{video: v, path: path, progress: progress, ctx: ectx, cancel: cancel, sink: s,
		free: make(chan []byte, c.Buffers), queue: make(chan run, c.Buffers-2+1), done: make(chan struct{}), failed: make(chan struct{}), limit: c.Buffers}
	progress(0)
	go e.write()
	return e, nil
}

// Video is the stream this encoder expects.
func (e *Encoder) Video() Video { return e.video }

// Buffer returns a frame buffer to draw into (FrameBytes long, holding an
// earlier frame's pixels), waiting while all are queued or being written.
func (e *Encoder) Buffer() ([]byte, error) {
	select {
	case b := <-e.free:
		return b, nil
	default:
	}
	if e.made < e.limit {
		e.made++
		return make([]byte, e.video.FrameBytes()), nil
	}
	select {
	case b := <-e.free:
		return b, nil
	case <-e.failed:
		return nil, e.failure()
	case <-e.ctx.Done():
		return nil, e.failure()
	}
}

// Send queues pix to be shown for n consecutive frames. pix becomes the
// encoder's: the caller does not touch it again (a buffer of the right size
// comes back through Buffer once written).
func (e *Encoder) Send(pix []byte, n int) error {
	switch {
	case e.over:
		return errors.New("media: send after close")
	case len(pix) != e.video.FrameBytes():
		return fmt.Errorf("media: a frame of %d bytes, want %d", len(pix), e.video.FrameBytes())
	case n < 1 || e.sent+n > e.video.Frames:
		return fmt.Errorf("media: %d more frames after %d of %d", n, e.sent, e.video.Frames)
	}
	select {
	case e.queue <- run{pix: pix, n: n}:
		e.sent += n
		return nil
	case <-e.failed:
		return e.failure()
	case <-e.ctx.Done():
		return e.failure()
	}
}

// Close ends the stream and waits for the file: nil when it is complete.
func (e *Encoder) Close() error {
	if e.sent != e.video.Frames && !e.over {
		e.Abort()
		return fmt.Errorf("media: the stream stopped after %d of %d frames", e.sent, e.video.Frames)
	}
	if err := e.stop(); err != nil {
		return err
	}
	e.progress(100)
	return nil
}

// Abort stops the encode: ffmpeg is killed and waited for, the output
// removed. It is safe after Close, and more than once.
func (e *Encoder) Abort() {
	e.cancel()
	_ = e.stop()
}

// stop closes the queue once, waits for the writer (and so for ffmpeg) and
// keeps the outcome; a failed output is removed.
func (e *Encoder) stop() error {
	e.once.Do(func() {
		e.over = true
		close(e.queue)
		<-e.done
		e.result = e.failure() // before our own cancel below
		e.cancel()
		if e.result != nil {
			_ = os.Remove(e.path)
		}
	})
	return e.result
}

// failure is why the encode stopped, nil while it goes on or when it
// completed.
func (e *Encoder) failure() error {
	select {
	case <-e.failed:
		return e.err
	default:
	}
	if e.ctx.Err() != nil {
		return context.Cause(e.ctx)
	}
	return nil
}

// write is the encoder's goroutine: it drains the queue into the sink, and
// always finishes the sink (so ffmpeg is waited for, whatever happened).
func (e *Encoder) write() {
	defer close(e.done)
	var err error
	finished := false
	written, shown := 0, 0
	step := max(1, (e.video.Frames+99)/100)
	for r := range e.queue {
		if err != nil {
			continue // the producer learns of the failure and stops
		}
		// A long run of one frame (a still segment) is written in parts of
		// about a percent of the video each, so progress moves while it is.
		for left, again := r.n, false; left > 0 && err == nil; again = true {
			n := min(left, step)
			if err = e.sink.frames(r.pix, n, again); err != nil {
				break
			}
			left, written = left-n, written+n
			if p := min(written*100/e.video.Frames, 99); p != shown {
				shown = p
				e.progress(p)
			}
		}
		if err != nil {
			// A broken pipe says less than ffmpeg's own last words.
			if ferr := e.sink.finish(); ferr != nil {
				err = ferr
			}
			finished = true
			e.fail(err)
			continue
		}
		select {
		case e.free <- r.pix:
		default:
		}
	}
	if !finished {
		if err = e.sink.finish(); err != nil {
			e.fail(err)
		}
	}
}

// fail records why the encode stopped (the caller's cancellation or the time
// limit before ffmpeg's words: a killed ffmpeg says only "killed") and tells
// the producer.
func (e *Encoder) fail(err error) {
	if e.ctx.Err() != nil {
		err = context.Cause(e.ctx)
	}
	e.err = err
	close(e.failed)
	e.cancel()
}
