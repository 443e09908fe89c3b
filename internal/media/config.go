package media

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Config bounds the encoders and names the binaries. Zero values take the
// defaults of WithDefaults.
type Config struct {
	// FFmpeg and FFprobe are the binaries (FFMPEG, FFPROBE; default ffmpeg
	// and ffprobe on PATH).
	FFmpeg  string
	FFprobe string
	// Threads bounds ffmpeg's encoder and filter threads (default 2: a
	// worker shares its machine).
	Threads int
	// Timeout bounds one encode's wall time, from Start to Close (default
	// 15 minutes: a 10-minute 1080p timeline at 60 fps on a slow worker).
	Timeout time.Duration
	// Preset and CRF are libx264's speed/size trade-off and quality for mp4
	// and mov (default veryfast and 20: visually clean, a few MB a minute).
	Preset string
	CRF    int
	// Buffers is how many frame buffers an Encoder hands out (default 3:
	// one being drawn, one queued, one being written).
	Buffers int
	// MaxPixels bounds a frame (default 3840*2160).
	MaxPixels int
}

// Defaults.
const (
	DefaultThreads   = 2
	DefaultTimeout   = 15 * time.Minute
	DefaultPreset    = "veryfast"
	DefaultCRF       = 20
	DefaultBuffers   = 3
	DefaultMaxPixels = 3840 * 2160
)

// WithDefaults fills in zero values (FFMPEG and FFPROBE from the environment).
func (c Config) WithDefaults() Config {
	if c.FFmpeg == "" {
		c.FFmpeg = envOr("FFMPEG", "ffmpeg")
	}
	if c.FFprobe == "" {
		c.FFprobe = envOr("FFPROBE", "ffprobe")
	}
	if c.Threads == 0 {
		c.Threads = DefaultThreads
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Preset == "" {
		c.Preset = DefaultPreset
	}
	if c.CRF == 0 {
		c.CRF = DefaultCRF
	}
	if c.Buffers == 0 {
		c.Buffers = DefaultBuffers
	}
	if c.MaxPixels == 0 {
		c.MaxPixels = DefaultMaxPixels
	}
	return c
}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.Threads < 1 || c.Threads > 64 {
		errs = append(errs, fmt.Errorf("media: threads %d: must be 1..64", c.Threads))
	}
	if c.Timeout <= 0 {
		errs = append(errs, errors.New("media: timeout must be positive"))
	}
	if c.CRF < 1 || c.CRF > 51 {
		errs = append(errs, fmt.Errorf("media: crf %d: must be 1..51", c.CRF))
	}
	if _, ok := presets[c.Preset]; !ok {
		errs = append(errs, fmt.Errorf("media: preset %q is not a libx264 preset", c.Preset))
	}
	if c.Buffers < 2 || c.Buffers > 16 {
		errs = append(errs, fmt.Errorf("media: buffers %d: must be 2..16", c.Buffers))
	}
	if c.MaxPixels < 1 {
		errs = append(errs, errors.New("media: max pixels must be positive"))
	}
	return errors.Join(errs...)
}

var presets = map[string]struct{}{"ultrafast": {}, "superfast": {}, "veryfast": {}, "faster": {}, "fast": {},
	"medium": {}, "slow": {}, "slower": {}, "veryslow": {}}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
