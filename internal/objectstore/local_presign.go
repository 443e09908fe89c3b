package objectstore

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Query parameters of the local backend's signed URLs.
const (
	paramExpires     = "expires"
	paramMaxBytes    = "max_bytes"
	paramContentType = "content_type"
	paramDisposition = "disposition"
	paramKeyID       = "key_id"
	paramSignature   = "signature"
)

// PresignUpload signs a PUT to Handler. The handler checks, before it stores
// a byte, that the URL is unexpired and untouched, that Content-Type is the
// signed type and that Content-Length is within the signed maximum; a
// chunked body is cut off at the maximum and nothing is kept.
func (l *Local) PresignUpload(ctx context.Context, key string, p UploadPolicy) (PresignedUpload, error) {
	p, err := planUpload(key, p, l.maxBytes, l.uploadExpiry)
	if err != nil {
		return PresignedUpload{}, withOp("presign upload", key, err)
	}
	if err := l.canSign(ctx); err != nil {
		return PresignedUpload{}, withOp("presign upload", key, err)
	}
	expires := expiryTime(l.now(), p.Expires)
	g := grant{Method: http.MethodPut, Key: key, Expires: expires.Unix(), MaxBytes: p.MaxBytes, ContentType: p.ContentType}
	return PresignedUpload{
		Method:      http.MethodPut,
		URL:         l.signedURL(g),
		Headers:     map[string]string{"Content-Type": p.ContentType},
		ContentType: p.ContentType,
		MaxBytes:    p.MaxBytes,
		ExpiresAt:   expires,
	}, nil
}

// PresignDownload signs a GET (or HEAD) to Handler.
func (l *Local) PresignDownload(ctx context.Context, key string, opts DownloadOptions) (PresignedDownload, error) {
	if err := ValidateKey(key); err != nil {
		return PresignedDownload{}, withOp("presign download", key, err)
	}
	exp, err := expiryWithin(opts.Expires, l.downloadExpiry)
	if err != nil {
		return PresignedDownload{}, withOp("presign download", key, err)
	}
	var disposition string
	if opts.Filename != "" {
		if disposition, err = attachmentDisposition(opts.Filename); err != nil {
			return PresignedDownload{}, withOp("presign download", key, err)
		}
	}
	if err := l.canSign(ctx); err != nil {
		return PresignedDownload{}, withOp("presign download", key, err)
	}
	// Refuse early, as S3's backend does: a URL to nothing helps no one.
	if _, err := l.readMeta(key); err != nil {
		return PresignedDownload{}, withOp("presign download", key, err)
	}
	expires := expiryTime(l.now(), exp)
	g := grant{Method: http.MethodGet, Key: key, Expires: expires.Unix(), Disposition: disposition}
	return PresignedDownload{URL: l.signedURL(g), ExpiresAt: expires}, nil
}

func (l *Local) canSign(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.public == nil {
		return newError(KindUnavailable, "", "", "OBJECTSTORE_PUBLIC_URL is not set: the local store cannot make signed URLs", nil)
	}
	return nil
}

// expiryTime is now + d rounded up to the second the URL carries, so a URL
// never lives shorter than asked.
func expiryTime(now time.Time, d time.Duration) time.Time {
	t := now.Add(d)
	if r := t.Truncate(time.Second); !r.Equal(t) {
		t = r.Add(time.Second)
	}
	return t.UTC()
}

// signedURL is <public URL>/<key>?<grant>&key_id=..&signature=...
func (l *Local) signedURL(g grant) string {
	keyID, sig := l.signer.sign(g)
	q := url.Values{}
	q.Set(paramExpires, strconv.FormatInt(g.Expires, 10))
	if g.Method == http.MethodPut {
		q.Set(paramMaxBytes, strconv.FormatInt(g.MaxBytes, 10))
		q.Set(paramContentType, g.ContentType)
	}
	if g.Disposition != "" {
		q.Set(paramDisposition, g.Disposition)
	}
	q.Set(paramKeyID, keyID)
	q.Set(paramSignature, sig)
	u := *l.public
	u.Path = l.public.Path + "/" + g.Key
	u.RawPath = l.public.EscapedPath() + "/" + escapeKey(g.Key)
	u.RawQuery = q.Encode()
	return u.String()
}

// escapeKey escapes each segment on its own, so the slashes stay path
// separators and nothing else in a key can change the path.
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
