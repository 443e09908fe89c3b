package media

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"time"
)

// pngZip writes png_sequence: a zip of frame_00001.png ... in Go. A run of
// identical frames is encoded once and stored again under each number
// (PNG is compressed already: the zip stores, it does not deflate).
type pngZip struct {
	ctx   context.Context
	v     Video
	f     *os.File
	zw    *zip.Writer
	enc   png.Encoder
	buf   bytes.Buffer
	index int
	at    time.Time
}

func newPNGZip(ctx context.Context, v Video, path string) (*pngZip, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &pngZip{ctx: ctx, v: v, f: f, zw: zip.NewWriter(f), enc: png.Encoder{CompressionLevel: png.BestSpeed},
		at: time.Now().UTC()}, nil
}

// Name is the zip entry of frame i (from 0).
func PNGSequenceName(i int) string { return fmt.Sprintf("frame_%05d.png", i+1) }

func (z *pngZip) frames(pix []byte, n int, again bool) error {
	if err := z.ctx.Err(); err != nil {
		return err
	}
	if !again || z.buf.Len() == 0 { // a run's next part reuses its PNG: one encode a run
		img := &image.RGBA{Pix: pix, Stride: z.v.Width * 4, Rect: image.Rect(0, 0, z.v.Width, z.v.Height)}
		z.buf.Reset()
		if err := z.enc.Encode(&z.buf, img); err != nil {
			return err
		}
	}
	data := z.buf.Bytes()
	sum := crc32.ChecksumIEEE(data)
	for range n {
		if err := z.ctx.Err(); err != nil {
			return err
		}
		w, err := z.zw.CreateRaw(&zip.FileHeader{Name: PNGSequenceName(z.index), Method: zip.Store, Modified: z.at,
			CRC32: sum, CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(len(data))})
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
		z.index++
	}
	return nil
}

func (z *pngZip) finish() error {
	err := z.zw.Close()
	if cerr := z.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = z.ctx.Err()
	}
	return err
}
