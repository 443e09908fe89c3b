package objectstore

import (
	"context"
	"io"
	"time"
)

// Store is the object store of every service. Implementations are safe for
// concurrent use. Every method validates the key first (ValidateKey).
type Store interface {
	// Put stores body under key, streamed: the body is never held whole in
	// memory. Reading more than the limit (PutOptions.MaxBytes, at most the
	// store's MaxObjectBytes) stops the upload with ErrTooLarge and stores
	// nothing. The object appears whole or not at all: readers see the
	// previous object, if any, until Put returns.
	Put(ctx context.Context, key string, body io.Reader, opts PutOptions) (Info, error)
	// Get opens the object for reading; the caller closes Body.
	Get(ctx context.Context, key string) (*Object, error)
	// Stat describes the object without reading it.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes the object; deleting a missing one is no error.
	Delete(ctx context.Context, key string) error
	// List returns the objects whose key starts with prefix, in key order,
	// one page at a time. Entries carry Key, Size, ETag and Modified; Stat
	// gives content type and metadata.
	List(ctx context.Context, prefix string, opts ListOptions) (Page, error)
	// PresignUpload returns a URL a client can upload one object to directly,
	// without credentials, until the policy's expiry; the maximum size and
	// the content type are bound into the signature.
	PresignUpload(ctx context.Context, key string, policy UploadPolicy) (PresignedUpload, error)
	// PresignDownload returns a URL that reads the object (a download or a
	// preview) until the expiry. A missing object is ErrNotFound.
	PresignDownload(ctx context.Context, key string, opts DownloadOptions) (PresignedDownload, error)
	// Health reports whether the store can serve: nil, or ErrUnavailable.
	Health(ctx context.Context) error
	// Close releases what the store holds open.
	Close() error
}

// Info describes a stored object.
type Info struct {
	Key         string
	ContentType string
	Size        int64
	// ETag is opaque and changes when the content changes; compare it only
	// for equality, never compute it.
	ETag     string
	Modified time.Time
	Metadata map[string]string // nil when none (and in List)
}

// Object is an object opened for reading.
type Object struct {
	Info
	Body io.ReadCloser
}

// PutOptions describes an upload.
type PutOptions struct {
	// ContentType is stored and served back; empty is
	// application/octet-stream, a malformed one ErrUnsupportedType.
	ContentType string
	// MaxBytes bounds the object; zero or above the store's MaxObjectBytes
	// is the store's MaxObjectBytes.
	MaxBytes int64
	// Size, when positive, is the length the body must have: a larger Size
	// than the limit fails before reading, and a body of another length
	// fails (ErrInvalidArgument) and stores nothing. Zero means unknown.
	Size int64
	// Metadata is kept with the object: names of lower-case letters, digits
	// and dashes, printable ASCII values, 2 KiB in all.
	Metadata map[string]string
}

// ListOptions pages through a listing.
type ListOptions struct {
	// PageToken is the NextPageToken of the previous page; empty starts.
	PageToken string
	// Limit is the page size: default 100, at most 1000.
	Limit int
}

// Page is one page of a listing.
type Page struct {
	Objects []Info
	// NextPageToken is empty on the last page.
	NextPageToken string
}

// UploadPolicy is what a presigned upload allows.
type UploadPolicy struct {
	// ContentType is the one type the upload may declare (required).
	ContentType string
	// MaxBytes bounds the upload: zero is the store's MaxObjectBytes, more
	// than it is ErrTooLarge.
	MaxBytes int64
	// Expires is how long the URL works: zero is the configured default, at
	// most 7 days (S3's own limit).
	Expires time.Duration
}

// PresignedUpload tells a client how to upload. Method is PUT (local
// backend: the body is the object, with the Headers) or POST (S3: a
// multipart/form-data form with Fields first and the file last, in a field
// named "file", as S3's POST Object requires).
type PresignedUpload struct {
	Method      string
	URL         string
	Headers     map[string]string // to send with a PUT
	Fields      map[string]string // form fields of a POST
	ContentType string
	MaxBytes    int64
	ExpiresAt   time.Time
}

// DownloadOptions shapes a presigned download.
type DownloadOptions struct {
	// Expires is how long the URL works: zero is the configured default, at
	// most 7 days.
	Expires time.Duration
	// Filename, when set, makes the answer an attachment saved under that
	// name. Without it the object is served inline (a preview), except
	// active content (html, svg, xml, script), which is always an attachment.
	Filename string
}

// PresignedDownload is a URL that reads one object until ExpiresAt.
type PresignedDownload struct {
	URL       string
	ExpiresAt time.Time
}

// Limits of signed URLs and listings.
const (
	MaxURLExpiry     = 7 * 24 * time.Hour
	DefaultListLimit = 100
	MaxListLimit     = 1000
)
