// Package objectstore is the one object (blob) store every service uses for
// exports, media, attachments and assets: put, get, stat, delete, list by
// prefix, and signed URLs for direct upload and preview.
//
// Two backends sit behind Store, chosen by URL in Config:
//
//   - file:///abs/path, the default: a local directory with atomic writes. Its
//     signed URLs point at Handler, an HTTP handler of this package that checks
//     an HMAC-SHA256 signature made with a key from configuration.
//   - s3://bucket?endpoint=host:port&region=...&secure=true: any S3-compatible
//     service through the MinIO client; S3 signs its own URLs.
//
// Keys are namespaced by the caller ("<organization>/<context>/<id>"); the
// store refuses keys that could leave that namespace (see ValidateKey).
// Errors carry a Kind from a small set (not found, too large, invalid key,
// unsupported type, invalid argument, unavailable) that HTTP layers map to a
// status; Error() text is for logs, never for clients.
//
// The package imports no other package of the platform: every service, and
// the HTTP kernel, may depend on it.
package objectstore
