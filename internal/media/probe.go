package media

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"strconv"
	"strings"
	"time"
)

// Info is what ffprobe says of a file's first video stream.
type Info struct {
	Container string // ffprobe's format_name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "gif"
	Codec     string // e.g. h264, gif
	PixFmt    string // e.g. yuv420p
	Width     int
	Height    int
	FPS       float64 // the stream's frame rate
	Duration  time.Duration
	Frames    int // counted by decoding (exact, and as slow as a decode)
}

// Probe reads a file's container and first video stream, decoding it to
// count frames. It is for tests and checks of uploaded media.
func (c Config) Probe(ctx context.Context, path string) (Info, error) {
	c = c.WithDefaults()
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd, errs := command(ctx, c.FFprobe, "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,pix_fmt,width,height,r_frame_rate,nb_read_frames:format=format_name,duration",
		"-of", "json", path)
	out, err := cmd.Output()
	if err != nil {
		return Info{}, runError("ffprobe", errs, err)
	}
	var doc struct {
		Streams []struct {
			CodecName    string `json:"codec_name"`
			PixFmt       string `json:"pix_fmt"`
			Width        int    `json:"width"`
			Height       int    `json:"height"`
			RFrameRate   string `json:"r_frame_rate"`
			NbReadFrames string `json:"nb_read_frames"`
		} `json:"streams"`
		Format struct {
			FormatName string `json:"format_name"`
			Duration   string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return Info{}, fmt.Errorf("ffprobe: unreadable answer: %w", err)
	}
	if len(doc.Streams) == 0 {
		return Info{}, fmt.Errorf("ffprobe: %s has no video stream", path)
	}
	s := doc.Streams[0]
	info := Info{Container: doc.Format.FormatName, Codec: s.CodecName, PixFmt: s.PixFmt, Width: s.Width, Height: s.Height}
	info.Frames, _ = strconv.Atoi(s.NbReadFrames)
	if sec, err := strconv.ParseFloat(doc.Format.Duration, 64); err == nil {
		info.Duration = time.Duration(sec * float64(time.Second))
	}
	if num, den, ok := strings.Cut(s.RFrameRate, "/"); ok {
		n, _ := strconv.ParseFloat(num, 64)
		d, _ := strconv.ParseFloat(den, 64)
		if d > 0 {
			info.FPS = n / d
		}
	}
	return info, nil
}

// FrameAt decodes the frame shown at time at (seeking like a player) into
// RGB pixels, converted with the colour matrix the file is tagged with.
func (c Config) FrameAt(ctx context.Context, path string, at time.Duration) (image.Image, error) {
	c = c.WithDefaults()
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd, errs := command(ctx, c.FFmpeg, "-hide_banner", "-nostdin", "-loglevel", "error",
		"-ss", strconv.FormatFloat(at.Seconds(), 'f', 3, 64), "-i", path,
		"-frames:v", "1", "-vf", "scale=in_color_matrix=auto:in_range=auto,format=rgb24", "-f", "image2pipe", "-c:v", "png", "pipe:1")
	out, err := cmd.Output()
	if err != nil {
		return nil, runError("ffmpeg", errs, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ffmpeg: no frame at %s in %s", at, path)
	}
	return png.Decode(bytes.NewReader(out))
}
