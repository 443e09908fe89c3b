package objectstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// putPlan is a Put's options checked and resolved the same way for every
// backend, so both refuse and accept the same uploads.
type putPlan struct {
	key         string
	contentType string
	limit       int64 // the object may have at most this many bytes
	size        int64 // the exact length declared, or 0
	metadata    map[string]string
}

func planPut(key string, opts PutOptions, storeMax int64) (putPlan, error) {
	if err := ValidateKey(key); err != nil {
		return putPlan{}, err
	}
	ct, err := NormalizeContentType(opts.ContentType)
	if err != nil {
		return putPlan{}, err
	}
	if err := validateMetadata(opts.Metadata); err != nil {
		return putPlan{}, err
	}
	if opts.MaxBytes < 0 || opts.Size < 0 {
		return putPlan{}, newError(KindInvalidArgument, "", "", "negative size or limit", nil)
	}
	limit := storeMax
	if opts.MaxBytes > 0 && opts.MaxBytes < limit {
		limit = opts.MaxBytes
	}
	if opts.Size > limit {
		return putPlan{}, newError(KindTooLarge, "", "", fmt.Sprintf("declared %d bytes, the limit is %d", opts.Size, limit), nil)
	}
	return putPlan{key: key, contentType: ct, limit: limit, size: opts.Size, metadata: opts.Metadata}, nil
}

// body wraps the caller's reader with the plan's bounds.
func (p putPlan) body(ctx context.Context, r io.Reader) *boundedReader {
	return &boundedReader{ctx: ctx, r: r, limit: p.limit, size: p.size}
}

// boundedReader enforces a Put's bounds while streaming: one byte past the
// limit is ErrTooLarge, a declared size not met exactly is
// ErrInvalidArgument, and a canceled context stops the copy between reads.
// Backends abandon the write on any error, so nothing partial is stored.
type boundedReader struct {
	ctx   context.Context
	r     io.Reader
	limit int64
	size  int64 // 0: unknown
	n     int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	// Ask for at most one byte past the bound: enough to notice the excess
	// without reading (and storing) more of it.
	bound := b.limit
	if b.size > 0 {
		bound = b.size
	}
	if room := bound - b.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		return 0, newError(KindTooLarge, "", "", fmt.Sprintf("the body exceeds the limit of %d bytes", b.limit), nil)
	}
	if b.size > 0 && b.n > b.size {
		return 0, newError(KindInvalidArgument, "", "", fmt.Sprintf("the body is longer than the declared %d bytes", b.size), nil)
	}
	if err != nil && !errors.Is(err, io.EOF) && b.ctx.Err() == nil {
		// The caller's reader failed (a client that sent less than its
		// Content-Length, an upstream that broke): the body's fault, not the
		// store's.
		return 0, newError(KindInvalidArgument, "", "", "reading the body failed", err)
	}
	if errors.Is(err, io.EOF) && b.size > 0 && b.n != b.size {
		// No io.ErrUnexpectedEOF as the cause: io.ReadFull's callers would
		// take it for an ordinary short read.
		return n, newError(KindInvalidArgument, "", "", fmt.Sprintf("the body is %d bytes, %d were declared", b.n, b.size), nil)
	}
	return n, err
}

// expiryWithin resolves a URL lifetime: zero is the default, and the result
// must lie in (0, MaxURLExpiry].
func expiryWithin(d, def time.Duration) (time.Duration, error) {
	if d == 0 {
		d = def
	}
	if d <= 0 || d > MaxURLExpiry {
		return 0, newError(KindInvalidArgument, "", "", "URL expiry must be positive and at most 7 days", nil)
	}
	return d, nil
}

// planUpload checks a presign request the same way for every backend.
func planUpload(key string, p UploadPolicy, storeMax int64, defExpiry time.Duration) (UploadPolicy, error) {
	if err := ValidateKey(key); err != nil {
		return p, err
	}
	if p.ContentType == "" {
		return p, newError(KindUnsupportedType, "", "", "an upload URL needs the content type it allows", nil)
	}
	ct, err := NormalizeContentType(p.ContentType)
	if err != nil {
		return p, err
	}
	switch {
	case p.MaxBytes < 0:
		return p, newError(KindInvalidArgument, "", "", "negative upload limit", nil)
	case p.MaxBytes == 0:
		p.MaxBytes = storeMax
	case p.MaxBytes > storeMax:
		return p, newError(KindTooLarge, "", "", fmt.Sprintf("upload limit above the store's %d bytes", storeMax), nil)
	}
	exp, err := expiryWithin(p.Expires, defExpiry)
	if err != nil {
		return p, err
	}
	p.ContentType, p.Expires = ct, exp
	return p, nil
}

// listLimit resolves a page size.
func listLimit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultListLimit, nil
	case n < 0 || n > MaxListLimit:
		return 0, newError(KindInvalidArgument, "", "", "list limit must be 1..1000", nil)
	}
	return n, nil
}
