package objectstore

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

// testMaxObjectBytes is the store-wide limit of the test stores: above one
// S3 part (16 MiB), so multipart streaming is exercised.
const testMaxObjectBytes = 64 << 20

// fixture is a fresh, empty store with probes into its storage, for the
// conformance table: the same assertions hold for every backend.
type fixture struct {
	store Store
	// stored is how many bytes have reached the storage so far (blob files
	// written; request bytes the S3 server has read).
	stored func() int64
	// leftovers counts what a failed Put could leave behind: blobs no object
	// names and temporary files; incomplete multipart uploads.
	leftovers func(t *testing.T) int
}

type backend struct {
	name string
	open func(t *testing.T) fixture
}

var backends = []backend{
	{"local", openLocalFixture},
	{"s3", openS3Fixture},
}

func openLocalFixture(t *testing.T) fixture {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), Config{URL: "file://" + filepath.ToSlash(dir),
		MaxObjectBytes: testMaxObjectBytes, PublicURL: "http://files.test/objects"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return fixture{
		store: s,
		stored: func() int64 {
			var n int64
			_ = filepath.WalkDir(filepath.Join(dir, blobsDir), func(_ string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if fi, err := d.Info(); err == nil {
						n += fi.Size()
					}
				}
				return nil
			})
			return n
		},
		leftovers: func(t *testing.T) int {
			blobs, metas, temps := countLocalFiles(t, dir)
			return blobs - metas + temps
		},
	}
}

// countLocalFiles counts the blob, metadata and temporary files of a local
// store's directory.
func countLocalFiles(t *testing.T, dir string) (blobs, metas, temps int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch strings.SplitN(filepath.ToSlash(rel), "/", 2)[0] {
		case blobsDir:
			blobs++
		case objectsDir:
			metas++
		case tmpDir:
			temps++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return blobs, metas, temps
}

func openS3Fixture(t *testing.T) fixture {
	t.Helper()
	f := newFakeS3(t)
	c := f.config()
	c.MaxObjectBytes = testMaxObjectBytes
	s, err := Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return fixture{
		store:  s,
		stored: f.received.Load,
		leftovers: func(t *testing.T) int {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			n := 0
			for u := range s.(*S3).client.ListIncompleteUploads(ctx, f.Bucket, "", true) {
				if u.Err != nil {
					if minio.ToErrorResponse(u.Err).Code == "NoSuchUpload" {
						return 0 // gofakes3: no upload was ever started in the bucket
					}
					t.Fatal(u.Err)
				}
				n++
			}
			return n
		},
	}
}
