package media

import (
	"fmt"
	"slices"
	"strconv"
)

// Format is an output format (the studio's outputFormat values).
type Format string

// Formats.
const (
	MP4         Format = "mp4"          // H.264, yuv420p, BT.709, +faststart
	MOV         Format = "mov"          // the same stream in a QuickTime container
	GIF         Format = "gif"          // a 256-colour palette per frame, looping
	PNGSequence Format = "png_sequence" // a zip of frame_00001.png, frame_00002.png, ...
)

// format is what a Format needs: its file, and either ffmpeg's output
// arguments or nil for an encoder written in Go.
type format struct {
	contentType string
	ext         string
	// evenSize: yuv420p halves both dimensions for chroma, so H.264 needs
	// an even width and height.
	evenSize bool
	output   func(c Config, v Video) []string
}

var formats = map[Format]format{
	MP4: {contentType: "video/mp4", ext: ".mp4", evenSize: true, output: func(c Config, v Video) []string {
		return append(h264(c), "-movflags", "+faststart", "-f", "mp4")
	}},
	MOV: {contentType: "video/quicktime", ext: ".mov", evenSize: true, output: func(c Config, v Video) []string {
		return append(h264(c), "-movflags", "+faststart", "-f", "mov")
	}},
	// One palette per frame (stats_mode=single, new=1) keeps the filter
	// streaming: a palette over the whole clip would hold every frame in
	// memory until the last one arrived.
	GIF: {contentType: "image/gif", ext: ".gif", output: func(c Config, v Video) []string {
		return []string{"-vf", "split[a][b];[a]palettegen=stats_mode=single[p];[b][p]paletteuse=new=1:dither=bayer:bayer_scale=3",
			"-loop", "0", "-f", "gif"}
	}},
	PNGSequence: {contentType: "application/zip", ext: ".zip"},
}

// h264 is libx264 for players everywhere: yuv420p, converted and tagged as
// BT.709 (HD), bounded threads.
func h264(c Config) []string {
	return []string{"-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
		"-c:v", "libx264", "-preset", c.Preset, "-crf", strconv.Itoa(c.CRF), "-threads", strconv.Itoa(c.Threads),
		"-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"}
}

// Formats lists the output formats.
func Formats() []Format {
	out := make([]Format, 0, len(formats))
	for f := range formats {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// Known reports a format this package writes.
func (f Format) Known() bool { _, ok := formats[f]; return ok }

// ContentType is the output's media type (png_sequence: application/zip).
func (f Format) ContentType() string { return formats[f].contentType }

// Ext is the output file's extension, with its dot.
func (f Format) Ext() string { return formats[f].ext }

// Video is the frame stream an encoder receives.
type Video struct {
	Width, Height int
	FPS           int
	// Frames is how many frames will be sent: progress counts against it,
	// and Close refuses a stream that stopped short.
	Frames int
}

// FrameBytes is the size of one RGBA frame.
func (v Video) FrameBytes() int { return v.Width * v.Height * 4 }

func (v Video) check(c Config, f Format) error {
	spec, ok := formats[f]
	switch {
	case !ok:
		return fmt.Errorf("media: unknown format %q", f)
	case v.Width < 1 || v.Height < 1 || v.Width*v.Height > c.MaxPixels:
		return fmt.Errorf("media: frame %dx%d: must be 1x1 to %d pixels", v.Width, v.Height, c.MaxPixels)
	case spec.evenSize && (v.Width%2 != 0 || v.Height%2 != 0):
		return fmt.Errorf("media: %s needs an even frame size, not %dx%d", f, v.Width, v.Height)
	case v.FPS < 1 || v.FPS > 120:
		return fmt.Errorf("media: %d fps: must be 1..120", v.FPS)
	case v.Frames < 1:
		return fmt.Errorf("media: %d frames: at least one", v.Frames)
	}
	return nil
}
