package objectstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3 keeps objects in a bucket of an S3-compatible service (AWS S3, MinIO,
// Ceph, R2, ...) through the MinIO client.
type S3 struct {
	client         *minio.Client
	bucket         string
	maxBytes       int64
	uploadExpiry   time.Duration
	downloadExpiry time.Duration
}

var _ Store = (*S3)(nil)

// Streaming bounds. Objects up to smallObjectBytes are read whole and sent
// in one PUT (the common case: attachments, images); larger ones go as a
// multipart upload of partBytes parts, one part in memory at a time, and
// become visible only when S3 completes the upload (an aborted one leaves
// nothing). 16 MiB parts allow objects of 160 GB (S3's 10,000 parts).
const (
	smallObjectBytes = 8 << 20
	partBytes        = 16 << 20
)

// openS3 configures the client. c is defaulted and valid. No request is
// made: the region comes from the URL, so start-up does not wait for S3 and
// Health tells whether it answers.
func openS3(loc location, c Config) (*S3, error) {
	client, err := minio.New(loc.endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(c.AccessKeyID, c.SecretAccessKey, c.SessionToken),
		Secure: loc.secure,
		Region: loc.region,
		// The client's default is 10 tries with growing pauses: a request to a
		// dead endpoint would hold the caller's request for a long time.
		// Callers' contexts bound it anyway; three tries ride out a blip.
		MaxRetries: 3,
	})
	if err != nil {
		return nil, newError(KindInvalidArgument, "open", "", "cannot configure the S3 client", err)
	}
	return &S3{client: client, bucket: loc.bucket, maxBytes: c.MaxObjectBytes,
		uploadExpiry: c.UploadURLExpiry, downloadExpiry: c.DownloadURLExpiry}, nil
}

func (s *S3) Put(ctx context.Context, key string, body io.Reader, opts PutOptions) (Info, error) {
	plan, err := planPut(key, opts, s.maxBytes)
	if err != nil {
		return Info{}, withOp("put", key, err)
	}
	r := plan.body(ctx, body)
	putOpts := minio.PutObjectOptions{ContentType: plan.contentType, UserMetadata: plan.metadata, PartSize: partBytes}

	// Read the head of the body: if it ends there, one PUT of known length;
	// if not, stream the rest behind it. Either way the bounds are checked
	// before S3 has an object: the single PUT is sent only once the body is
	// known to fit, and a multipart upload that hits a bound is aborted. The
	// buffer grows with the body, so a small object costs a small buffer.
	var head bytes.Buffer
	_, err = io.CopyN(&head, r, min(smallObjectBytes, plan.limit+1))
	var up minio.UploadInfo
	switch {
	case KindOf(err) != "":
		return Info{}, withOp("put", key, err) // a bound was crossed
	case errors.Is(err, io.EOF):
		up, err = s.client.PutObject(ctx, s.bucket, key, bytes.NewReader(head.Bytes()), int64(head.Len()), putOpts)
	case err != nil:
		return Info{}, withOp("put", key, err)
	default:
		up, err = s.client.PutObject(ctx, s.bucket, key, io.MultiReader(&head, r), -1, putOpts)
	}
	if err != nil {
		return Info{}, withOp("put", key, s.classify(err))
	}
	modified := up.LastModified
	if modified.IsZero() {
		modified = time.Now().UTC()
	}
	return Info{Key: key, ContentType: plan.contentType, Size: up.Size, ETag: up.ETag, Modified: modified,
		Metadata: plan.metadata}, nil
}

func (s *S3) Get(ctx context.Context, key string) (*Object, error) {
	if err := ValidateKey(key); err != nil {
		return nil, withOp("get", key, err)
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, withOp("get", key, s.classify(err))
	}
	// GetObject is lazy; Stat sends the request and tells a missing key.
	st, err := obj.Stat()
	if err != nil {
		_ = obj.Close()
		return nil, withOp("get", key, s.classify(err))
	}
	info := infoOf(st)
	info.Key = key
	return &Object{Info: info, Body: obj}, nil
}

func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidateKey(key); err != nil {
		return Info{}, withOp("stat", key, err)
	}
	st, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return Info{}, withOp("stat", key, s.classify(err))
	}
	info := infoOf(st)
	info.Key = key
	return info, nil
}

// Delete needs no existence check: S3's DELETE of a missing key succeeds.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return withOp("delete", key, err)
	}
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return withOp("delete", key, s.classify(err))
	}
	return nil
}

func (s *S3) List(ctx context.Context, prefix string, opts ListOptions) (Page, error) {
	if err := validatePrefix(prefix); err != nil {
		return Page{}, withOp("list", prefix, err)
	}
	limit, err := listLimit(opts.Limit)
	if err != nil {
		return Page{}, withOp("list", prefix, err)
	}
	after, err := decodePageToken(opts.PageToken)
	if err != nil {
		return Page{}, withOp("list", prefix, err)
	}
	// One more than the page tells whether another page follows; the
	// listing goroutine stops when ctx is canceled on return.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var page Page
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{
		Prefix: prefix, StartAfter: after, Recursive: true, MaxKeys: limit + 1,
	}) {
		if o.Err != nil {
			return Page{}, withOp("list", prefix, s.classify(o.Err))
		}
		if o.Key <= after {
			continue // a service that ignores start-after
		}
		if len(page.Objects) == limit {
			page.NextPageToken = encodePageToken(page.Objects[limit-1].Key)
			break
		}
		page.Objects = append(page.Objects, Info{Key: o.Key, Size: o.Size, ETag: o.ETag, Modified: o.LastModified})
	}
	return page, nil
}

// Health asks whether the bucket exists: it proves the endpoint answers and
// the credentials are accepted.
func (s *S3) Health(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return withOp("health", "", s.classify(err))
	}
	if !ok {
		return newError(KindUnavailable, "health", "", "the bucket "+s.bucket+" does not exist", nil)
	}
	return nil
}

func (s *S3) Close() error { return nil }

// classify keeps errors of ours (too large, a bad body) and names S3's
// "no such key"; every other failure is unavailable (withOp).
func (s *S3) classify(err error) error {
	var mine *Error
	if errors.As(err, &mine) {
		return err
	}
	var resp minio.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.Code {
		case "NoSuchKey":
			return ErrNotFound
		case "EntityTooLarge":
			return newError(KindTooLarge, "", "", "S3 refused the size", err)
		}
		if resp.StatusCode == http.StatusNotFound && resp.Code != "NoSuchBucket" {
			return ErrNotFound // HEAD answers carry no body, so no code
		}
	}
	return err
}

// infoOf maps S3's description. S3 hands user metadata back with the names
// canonicalized ("Color"); ours are lower-case.
func infoOf(st minio.ObjectInfo) Info {
	var md map[string]string
	if len(st.UserMetadata) > 0 {
		md = make(map[string]string, len(st.UserMetadata))
		for k, v := range st.UserMetadata {
			md[strings.ToLower(k)] = v
		}
	}
	ct := st.ContentType
	if ct == "" {
		ct = DefaultContentType
	}
	return Info{Key: st.Key, ContentType: ct, Size: st.Size, ETag: st.ETag, Modified: st.LastModified, Metadata: md}
}
