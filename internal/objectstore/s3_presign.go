package objectstore

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/minio/minio-go/v7"
)

// PresignUpload returns a presigned POST policy, not a presigned PUT.
//
// Why: a SigV4 presigned PUT can bind the content type (a signed header) but
// not a maximum size, only an exact Content-Length that the client would
// have to declare up front. A POST policy binds both in the signed policy
// document S3 itself enforces: ["content-length-range", 0, max] and
// ["eq", "$Content-Type", type], plus the key, the bucket and the expiry.
// The client sends a multipart/form-data POST to URL with Fields first and
// the file last (field "file"); PresignedUpload.Method says which shape to
// use, so clients follow the store they are given.
func (s *S3) PresignUpload(ctx context.Context, key string, p UploadPolicy) (PresignedUpload, error) {
	p, err := planUpload(key, p, s.maxBytes, s.uploadExpiry)
	if err != nil {
		return PresignedUpload{}, withOp("presign upload", key, err)
	}
	expires := expiryTime(time.Now(), p.Expires)
	policy := minio.NewPostPolicy()
	for _, set := range []func() error{
		func() error { return policy.SetBucket(s.bucket) },
		func() error { return policy.SetKey(key) },
		func() error { return policy.SetExpires(expires) },
		func() error { return policy.SetContentType(p.ContentType) },
		func() error { return policy.SetContentLengthRange(0, p.MaxBytes) },
	} {
		if err := set(); err != nil {
			return PresignedUpload{}, newError(KindInvalidArgument, "presign upload", key, "invalid upload policy", err)
		}
	}
	u, fields, err := s.client.PresignedPostPolicy(ctx, policy)
	if err != nil {
		return PresignedUpload{}, withOp("presign upload", key, s.classify(err))
	}
	return PresignedUpload{Method: http.MethodPost, URL: u.String(), Fields: fields,
		ContentType: p.ContentType, MaxBytes: p.MaxBytes, ExpiresAt: expires}, nil
}

// PresignDownload signs a GET with S3's own query signature. The stored
// type is looked up first, to refuse a missing key and to have S3 answer
// active content as an attachment (response-content-disposition is part of
// the signed query). S3 cannot be told to send nosniff or a CSP: serve
// buckets from a domain of their own, never the platform's.
func (s *S3) PresignDownload(ctx context.Context, key string, opts DownloadOptions) (PresignedDownload, error) {
	if err := ValidateKey(key); err != nil {
		return PresignedDownload{}, withOp("presign download", key, err)
	}
	exp, err := expiryWithin(opts.Expires, s.downloadExpiry)
	if err != nil {
		return PresignedDownload{}, withOp("presign download", key, err)
	}
	var disposition string
	if opts.Filename != "" {
		if disposition, err = attachmentDisposition(opts.Filename); err != nil {
			return PresignedDownload{}, withOp("presign download", key, err)
		}
	}
	info, err := s.Stat(ctx, key)
	if err != nil {
		return PresignedDownload{}, withOp("presign download", key, err)
	}
	if disposition == "" && isActiveContent(info.ContentType) {
		disposition = "attachment"
	}
	params := url.Values{}
	params.Set("response-content-type", info.ContentType)
	if disposition != "" {
		params.Set("response-content-disposition", disposition)
	}
	// S3 counts whole seconds from signing time, at least one.
	exp = max(exp.Round(time.Second), time.Second)
	now := time.Now()
	u, err := s.client.PresignedGetObject(ctx, s.bucket, key, exp, params)
	if err != nil {
		return PresignedDownload{}, withOp("presign download", key, s.classify(err))
	}
	return PresignedDownload{URL: u.String(), ExpiresAt: now.Add(exp).UTC()}, nil
}
