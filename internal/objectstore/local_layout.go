package objectstore

import (
	"crypto/rand"
	"encoding/hex"
	"path"
	"regexp"
	"strings"
	"time"
)

// The local backend's directory:
//
//	objects/<seg>.d/<seg>.d/<last>.m   one metadata file per object (JSON)
//	blobs/<xx>/<32 hex>                the bytes, named at random
//	tmp/                               metadata files being written
//
// The metadata file is the object: writing it (a rename over the old one) is
// the single atomic step that makes a new version visible, with its content
// type and its bytes together. A blob that no metadata file names is
// invisible, so a failed or oversized upload leaves nothing behind but a
// blob that is removed at once.
//
// Suffixes keep every name's kind apart: a key "a" (file a.m) and a key "a/b"
// (directory a.d) live side by side, as they do in S3, and no key can name a
// blob or a temporary file.
const (
	objectsDir = "objects"
	blobsDir   = "blobs"
	tmpDir     = "tmp"
	dirSuffix  = ".d"
	metaSuffix = ".m"
)

// metaPath is the slash-separated path, relative to the store's root, of a
// valid key's metadata file.
func metaPath(key string) string {
	segs := strings.Split(key, "/")
	for i := range segs[:len(segs)-1] {
		segs[i] += dirSuffix
	}
	segs[len(segs)-1] += metaSuffix
	return objectsDir + "/" + strings.Join(segs, "/")
}

// keyFromMetaPath inverts metaPath; ok is false for anything else found in
// the tree (a stray file an operator left).
func keyFromMetaPath(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, objectsDir+"/")
	if !ok {
		return "", false
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		suffix := dirSuffix
		if i == len(segs)-1 {
			suffix = metaSuffix
		}
		trimmed, ok := strings.CutSuffix(s, suffix)
		if !ok || trimmed == "" {
			return "", false
		}
		segs[i] = trimmed
	}
	key := strings.Join(segs, "/")
	return key, ValidateKey(key) == nil
}

// prefixDir is the directory that holds every key starting with prefix: the
// directory of its last complete segment.
func prefixDir(prefix string) string {
	i := strings.LastIndex(prefix, "/")
	if i < 0 {
		return objectsDir
	}
	segs := strings.Split(prefix[:i], "/")
	for j := range segs {
		segs[j] += dirSuffix
	}
	return objectsDir + "/" + strings.Join(segs, "/")
}

// newBlobName is a fresh random blob path, spread over 256 directories.
func newBlobName() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	h := hex.EncodeToString(b)
	return path.Join(blobsDir, h[:2], h), nil
}

var blobNamePattern = regexp.MustCompile(`^blobs/[0-9a-f]{2}/[0-9a-f]{32}$`)

// localMeta is the metadata file of an object.
type localMeta struct {
	Key         string            `json:"key"`
	ContentType string            `json:"content_type"`
	Size        int64             `json:"size"`
	ETag        string            `json:"etag"`
	Modified    time.Time         `json:"modified"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Blob        string            `json:"blob"`
}

func (m localMeta) info() Info {
	return Info{Key: m.Key, ContentType: m.ContentType, Size: m.Size, ETag: m.ETag, Modified: m.Modified, Metadata: m.Metadata}
}
