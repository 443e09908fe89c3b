// Package media turns rendered frames into video and image files, decodes
// videos into frames of a box (video layers), and reads files back with
// ffprobe: the one media pipeline of the platform (the studio's renders,
// the design service's MP4 exports).
//
// Frames are RGBA (8 bits a channel, premultiplied, opaque in practice),
// width*height*4 bytes, piped raw into Debian's ffmpeg (scripts/ffmpeg.sh
// installs it; FFMPEG and FFPROBE name other binaries): no frame touches the
// disk on the way to mp4, mov and gif. png_sequence is encoded in Go (a zip
// of numbered PNGs), where a run of identical frames costs one PNG encode.
//
// An Encoder is a small pipeline: the caller draws into buffers it takes
// from the encoder (Buffer) and hands over runs of identical frames (Send),
// while a goroutine of the encoder writes the previous ones to ffmpeg. The
// buffers are few (Config.Buffers), so memory stays bounded whatever the
// length. The encode is bounded in threads and wall time (Config), killed
// with its context (no ffmpeg outlives Close or Abort), reports progress
// from the frames written, and fails with ffmpeg's last words, short.
//
// Why here (internal/, not providers/): providers/ are adapters to outside
// services speaking a wire protocol, each with a fake; ffmpeg is a local
// mechanism of the platform, like internal/objectstore. A remote renderer
// (the seed's RENDER_SERVICE_URL) would be a provider; it would not use this.
// The package imports no other package of the platform.
package media
