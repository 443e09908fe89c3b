package objectstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Local keeps objects in a directory (layout in local_layout.go). Every file
// operation goes through an os.Root, so no key, metadata file or symlink
// planted in the directory can reach a file outside it.
type Local struct {
	root           *os.Root
	maxBytes       int64
	signer         signer
	public         *url.URL // nil: no OBJECTSTORE_PUBLIC_URL, presigning fails
	uploadExpiry   time.Duration
	downloadExpiry time.Duration
	now            func() time.Time
}

var _ Store = (*Local)(nil)

// staleTemp is how old a temporary file must be before opening the store
// removes it: older than any write in progress, even a slow one.
const staleTemp = time.Hour

// maxMetaBytes bounds a metadata file read back (2 KiB of user metadata plus
// the fixed members).
const maxMetaBytes = 64 << 10

// openLocal opens (creating it if need be) the store in dir. c is defaulted
// and valid.
func openLocal(dir string, c Config) (*Local, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, newError(KindUnavailable, "open", "", "cannot create the store directory", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, newError(KindUnavailable, "open", "", "cannot open the store directory", err)
	}
	for _, d := range []string{objectsDir, blobsDir, tmpDir} {
		if err := root.MkdirAll(d, 0o700); err != nil {
			_ = root.Close()
			return nil, newError(KindUnavailable, "open", "", "cannot create "+d, err)
		}
	}
	l := &Local{root: root, maxBytes: c.MaxObjectBytes, uploadExpiry: c.UploadURLExpiry,
		downloadExpiry: c.DownloadURLExpiry, now: c.Clock}
	if l.now == nil {
		l.now = time.Now
	}
	keys := c.SigningKeys
	if len(keys) == 0 {
		k, err := ephemeralSigningKey()
		if err != nil {
			_ = root.Close()
			return nil, newError(KindUnavailable, "open", "", "cannot make a signing key", err)
		}
		keys = []SigningKey{k}
	}
	l.signer = signer{keys: keys}
	if c.PublicURL != "" {
		if l.public, err = parsePublicURL(c.PublicURL); err != nil {
			_ = root.Close()
			return nil, newError(KindInvalidArgument, "open", "", err.Error(), nil)
		}
	}
	l.sweepTemp()
	return l, nil
}

// sweepTemp removes temporary files a crash left behind.
func (l *Local) sweepTemp() {
	entries, err := fs.ReadDir(l.root.FS(), tmpDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && l.now().Sub(fi.ModTime()) > staleTemp {
			_ = l.root.Remove(path.Join(tmpDir, e.Name()))
		}
	}
}

func (l *Local) Put(ctx context.Context, key string, body io.Reader, opts PutOptions) (Info, error) {
	plan, err := planPut(key, opts, l.maxBytes)
	if err != nil {
		return Info{}, withOp("put", key, err)
	}
	blob, etag, size, err := l.writeBlob(plan.body(ctx, body))
	if err != nil {
		return Info{}, withOp("put", key, err)
	}
	meta := localMeta{Key: key, ContentType: plan.contentType, Size: size, ETag: etag,
		Modified: l.now().UTC(), Metadata: plan.metadata, Blob: blob}
	previous, _ := l.readMeta(key)
	if err := l.commitMeta(meta); err != nil {
		_ = l.root.Remove(blob)
		return Info{}, withOp("put", key, err)
	}
	if previous.Blob != "" && previous.Blob != blob {
		_ = l.root.Remove(previous.Blob)
	}
	return meta.info(), nil
}

// writeBlob streams r into a new blob and syncs it. On any error (too large,
// short, canceled, disk) the blob is removed: nothing of it remains.
func (l *Local) writeBlob(r io.Reader) (name, etag string, size int64, err error) {
	name, err = newBlobName()
	if err != nil {
		return "", "", 0, err
	}
	if err := l.root.MkdirAll(path.Dir(name), 0o700); err != nil {
		return "", "", 0, err
	}
	f, err := l.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", 0, err
	}
	sum := sha256.New()
	size, err = io.Copy(io.MultiWriter(f, sum), r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = l.root.Remove(name)
		return "", "", 0, err
	}
	return name, hex.EncodeToString(sum.Sum(nil)), size, nil
}

// commitMeta writes the metadata file beside tmp/ and renames it into
// place: the moment the new object becomes visible.
func (l *Local) commitMeta(m localMeta) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	tmpName, err := newBlobName()
	if err != nil {
		return err
	}
	tmp := path.Join(tmpDir, path.Base(tmpName)+metaSuffix)
	f, err := l.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(raw)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = l.root.Remove(tmp)
		return err
	}
	final := metaPath(m.Key)
	// A concurrent Delete may prune the directory between MkdirAll and
	// Rename; a few tries outlast it.
	for range 3 {
		if err = l.root.MkdirAll(path.Dir(final), 0o700); err != nil {
			break
		}
		if err = l.root.Rename(tmp, final); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		_ = l.root.Remove(tmp)
		return err
	}
	l.syncDir(path.Dir(final))
	return nil
}

// syncDir makes a rename durable. Best effort: not every platform can.
func (l *Local) syncDir(dir string) {
	if d, err := l.root.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// readMeta reads the metadata file of a valid key.
func (l *Local) readMeta(key string) (localMeta, error) {
	f, err := l.root.Open(metaPath(key))
	if err != nil {
		if isNotExist(err) {
			return localMeta{}, ErrNotFound
		}
		return localMeta{}, err
	}
	defer f.Close()
	var m localMeta
	if err := json.NewDecoder(io.LimitReader(f, maxMetaBytes)).Decode(&m); err != nil {
		return localMeta{}, newError(KindUnavailable, "", "", "unreadable metadata file", errCorruptMeta)
	}
	if m.Key != key || !blobNamePattern.MatchString(m.Blob) {
		return localMeta{}, newError(KindUnavailable, "", "", "metadata file does not match its key", errCorruptMeta)
	}
	return m, nil
}

// errCorruptMeta marks a metadata file that is not one this store wrote
// (hand-edited, truncated by a full disk): Get and Stat report it as
// unavailable, List passes over it rather than failing the whole listing.
var errCorruptMeta = errors.New("corrupt metadata file")

// isNotExist also covers a path component that is a file (ENOTDIR): for a
// key it means the same thing, nothing is stored there.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func (l *Local) Get(ctx context.Context, key string) (*Object, error) {
	obj, err := l.open(ctx, key)
	if err != nil {
		return nil, withOp("get", key, err)
	}
	return obj, nil
}

// open reads the metadata and opens its blob. A concurrent Put or Delete
// may remove the blob between the two reads; reading the metadata again
// then finds the new version, or nothing.
func (l *Local) open(ctx context.Context, key string) (*Object, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	for range 3 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := l.readMeta(key)
		if err != nil {
			return nil, err
		}
		f, err := l.root.Open(m.Blob)
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &Object{Info: m.info(), Body: f}, nil
	}
	return nil, ErrNotFound
}

func (l *Local) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidateKey(key); err != nil {
		return Info{}, withOp("stat", key, err)
	}
	if err := ctx.Err(); err != nil {
		return Info{}, withOp("stat", key, err)
	}
	m, err := l.readMeta(key)
	if err != nil {
		return Info{}, withOp("stat", key, err)
	}
	return m.info(), nil
}

func (l *Local) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return withOp("delete", key, err)
	}
	if err := ctx.Err(); err != nil {
		return withOp("delete", key, err)
	}
	m, err := l.readMeta(key)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return withOp("delete", key, err)
	}
	mp := metaPath(key)
	if err := l.root.Remove(mp); err != nil && !isNotExist(err) {
		return withOp("delete", key, err)
	}
	if err := l.root.Remove(m.Blob); err != nil && !isNotExist(err) {
		return withOp("delete", key, err)
	}
	// Prune the directories the key leaves empty; Remove refuses a directory
	// that is not, which ends the walk up.
	for dir := path.Dir(mp); dir != objectsDir; dir = path.Dir(dir) {
		if l.root.Remove(dir) != nil {
			break
		}
	}
	return nil
}

func (l *Local) List(ctx context.Context, prefix string, opts ListOptions) (Page, error) {
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
	keys, err := l.keysUnder(ctx, prefix, after)
	if err != nil {
		return Page{}, withOp("list", prefix, err)
	}
	slices.Sort(keys)
	var page Page
	for _, k := range keys {
		if len(page.Objects) == limit {
			page.NextPageToken = encodePageToken(page.Objects[limit-1].Key)
			break
		}
		m, err := l.readMeta(k)
		if errors.Is(err, ErrNotFound) || errors.Is(err, errCorruptMeta) {
			continue // deleted since the walk, or not an object of ours
		}
		if err != nil {
			return Page{}, withOp("list", prefix, err)
		}
		page.Objects = append(page.Objects, Info{Key: k, Size: m.Size, ETag: m.ETag, Modified: m.Modified})
	}
	return page, nil
}

// keysUnder walks the directory of prefix and returns the keys past after
// that start with prefix, unsorted. It costs a walk of that directory per
// page: fine for the development and single-node stores this backend is
// for; S3 lists by index.
func (l *Local) keysUnder(ctx context.Context, prefix, after string) ([]string, error) {
	start := prefixDir(prefix)
	var keys []string
	err := fs.WalkDir(l.root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start && isNotExist(err) {
				return fs.SkipAll // nothing stored under the prefix
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p == start {
				return nil
			}
			// Skip subtrees whose keys cannot start with prefix.
			kp, ok := keyFromMetaPath(strings.TrimSuffix(p, dirSuffix) + metaSuffix)
			if !ok {
				return fs.SkipDir
			}
			kp += "/"
			if !strings.HasPrefix(kp, prefix) && !strings.HasPrefix(prefix, kp) {
				return fs.SkipDir
			}
			return nil
		}
		if key, ok := keyFromMetaPath(p); ok && strings.HasPrefix(key, prefix) && key > after {
			keys = append(keys, key)
		}
		return nil
	})
	return keys, err
}

// Health checks that the directory is there and writable.
func (l *Local) Health(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return withOp("health", "", err)
	}
	if _, err := l.root.Stat(objectsDir); err != nil {
		return newError(KindUnavailable, "health", "", "the store directory is gone", err)
	}
	name, err := newBlobName()
	if err != nil {
		return withOp("health", "", err)
	}
	probe := path.Join(tmpDir, "health-"+path.Base(name))
	f, err := l.root.OpenFile(probe, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return newError(KindUnavailable, "health", "", "the store directory is not writable", err)
	}
	_ = f.Close()
	_ = l.root.Remove(probe)
	return nil
}

func (l *Local) Close() error { return l.root.Close() }
