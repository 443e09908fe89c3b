package objectstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestConformance runs one table against every backend: whatever a service
// relies on holds for the local directory and for S3 alike.
func TestConformance(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, c := range conformance {
				t.Run(c.name, func(t *testing.T) { c.run(t, b.open(t)) })
			}
		})
	}
}

var conformance = []struct {
	name string
	run  func(t *testing.T, f fixture)
}{
	{"put then get returns the bytes, type, size and metadata", func(t *testing.T, f fixture) {
		ctx := context.Background()
		info, err := f.store.Put(ctx, "org1/contacts/att-1", strings.NewReader("hello, world"),
			PutOptions{ContentType: "text/plain; charset=utf-8", Metadata: map[string]string{"uploaded-by": "user-7"}})
		if err != nil {
			t.Fatal(err)
		}
		if info.Size != 12 || info.ETag == "" || info.ContentType != "text/plain; charset=utf-8" {
			t.Fatalf("put info = %+v", info)
		}
		obj, err := f.store.Get(ctx, "org1/contacts/att-1")
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, obj.Body)
		if body != "hello, world" || obj.ContentType != "text/plain; charset=utf-8" || obj.Size != 12 || obj.ETag != info.ETag {
			t.Fatalf("get = %q %+v", body, obj.Info)
		}
		if obj.Metadata["uploaded-by"] != "user-7" {
			t.Fatalf("metadata = %v", obj.Metadata)
		}
		st, err := f.store.Stat(ctx, "org1/contacts/att-1")
		if err != nil || st.Size != 12 || st.ContentType != obj.ContentType || st.ETag != info.ETag || st.Modified.IsZero() {
			t.Fatalf("stat = %+v, %v", st, err)
		}
	}},
	{"put replaces the whole object", func(t *testing.T, f fixture) {
		ctx := context.Background()
		first := mustPut(t, f.store, "k/x", "first version", PutOptions{ContentType: "text/plain", Metadata: map[string]string{"a": "1"}})
		second := mustPut(t, f.store, "k/x", "2nd", PutOptions{ContentType: "image/png"})
		if first.ETag == second.ETag {
			t.Fatal("the ETag did not change with the content")
		}
		obj, err := f.store.Get(ctx, "k/x")
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, obj.Body); body != "2nd" || obj.ContentType != "image/png" || obj.Size != 3 || len(obj.Metadata) != 0 {
			t.Fatalf("after overwrite: %q %+v", body, obj.Info)
		}
		if n := f.leftovers(t); n != 0 {
			t.Fatalf("%d leftovers after an overwrite", n)
		}
	}},
	{"a missing key is not found", func(t *testing.T, f fixture) {
		ctx := context.Background()
		if _, err := f.store.Stat(ctx, "org1/none"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("stat: %v", err)
		}
		if _, err := f.store.Get(ctx, "org1/none"); !errors.Is(err, ErrNotFound) || KindOf(err) != KindNotFound {
			t.Fatalf("get: %v", err)
		}
	}},
	{"delete removes the object and is idempotent", func(t *testing.T, f fixture) {
		ctx := context.Background()
		mustPut(t, f.store, "org1/a/b", "x", PutOptions{})
		for i := range 2 {
			if err := f.store.Delete(ctx, "org1/a/b"); err != nil {
				t.Fatalf("delete #%d: %v", i+1, err)
			}
		}
		if _, err := f.store.Stat(ctx, "org1/a/b"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("after delete: %v", err)
		}
		if err := f.store.Delete(ctx, "never/was"); err != nil {
			t.Fatalf("delete of a missing key: %v", err)
		}
		if n := f.leftovers(t); n != 0 {
			t.Fatalf("%d leftovers after delete", n)
		}
	}},
	{"a key and keys below it live side by side", func(t *testing.T, f fixture) {
		ctx := context.Background()
		mustPut(t, f.store, "a", "top", PutOptions{})
		mustPut(t, f.store, "a/b", "below", PutOptions{})
		mustPut(t, f.store, "a.d/c", "looks like a directory", PutOptions{})
		for key, want := range map[string]string{"a": "top", "a/b": "below", "a.d/c": "looks like a directory"} {
			if got := mustGet(t, f.store, key); got != want {
				t.Fatalf("%s = %q, want %q", key, got, want)
			}
		}
		if err := f.store.Delete(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, f.store, "a/b"); got != "below" {
			t.Fatalf("a/b after deleting a = %q", got)
		}
	}},
	{"list pages through a prefix in key order", func(t *testing.T, f fixture) {
		ctx := context.Background()
		keys := []string{"org1/media/b", "org1/media/a", "org1/media/c/d", "org1/media", "org1/mediax", "org1/other/z", "org2/media/a"}
		for _, k := range keys {
			mustPut(t, f.store, k, k, PutOptions{})
		}
		for _, c := range []struct {
			prefix string
			limit  int
			want   []string
		}{
			{"org1/media/", 2, []string{"org1/media/a", "org1/media/b", "org1/media/c/d"}},
			{"org1/media", 0, []string{"org1/media", "org1/media/a", "org1/media/b", "org1/media/c/d", "org1/mediax"}},
			{"org1/media/c", 1, []string{"org1/media/c/d"}},
			{"", 3, []string{"org1/media", "org1/media/a", "org1/media/b", "org1/media/c/d", "org1/mediax", "org1/other/z", "org2/media/a"}},
			{"org3/", 0, nil},
		} {
			got, pages := listAll(t, f.store, c.prefix, c.limit)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("list %q = %v, want %v", c.prefix, got, c.want)
			}
			if c.limit > 0 && len(c.want) > 0 && pages != (len(c.want)+c.limit-1)/c.limit {
				t.Fatalf("list %q by %d took %d pages", c.prefix, c.limit, pages)
			}
		}
		page, err := f.store.List(ctx, "org1/media/", ListOptions{Limit: 1})
		if err != nil || len(page.Objects) != 1 || page.Objects[0].Size != int64(len("org1/media/a")) || page.Objects[0].ETag == "" {
			t.Fatalf("entry = %+v, %v", page, err)
		}
		if _, err := f.store.List(ctx, "org1/", ListOptions{Limit: MaxListLimit + 1}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("limit above the maximum: %v", err)
		}
		if _, err := f.store.List(ctx, "org1/", ListOptions{PageToken: "not base64!"}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("bad token: %v", err)
		}
	}},
	{"a body over the limit stores nothing", func(t *testing.T, f fixture) {
		ctx := context.Background()
		_, err := f.store.Put(ctx, "org1/big", strings.NewReader("12345678901"), PutOptions{MaxBytes: 10})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("11 bytes with a limit of 10: %v", err)
		}
		if _, err := f.store.Stat(ctx, "org1/big"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("the refused object is visible: %v", err)
		}
		if _, err := f.store.Put(ctx, "org1/big", strings.NewReader("1234567890"), PutOptions{MaxBytes: 10}); err != nil {
			t.Fatalf("exactly the limit: %v", err)
		}
		// A failed overwrite keeps the previous object whole.
		_, err = f.store.Put(ctx, "org1/big", strings.NewReader("this is far too long"), PutOptions{MaxBytes: 10, ContentType: "text/html"})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("overwrite over the limit: %v", err)
		}
		obj, err := f.store.Get(ctx, "org1/big")
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, obj.Body); body != "1234567890" || obj.ContentType != DefaultContentType {
			t.Fatalf("after a refused overwrite: %q %s", body, obj.ContentType)
		}
		// A declared size over the limit fails before a byte is read.
		_, err = f.store.Put(ctx, "org1/declared", failingReader{t}, PutOptions{MaxBytes: 10, Size: 11})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("declared over the limit: %v", err)
		}
		// Without a limit of its own, a Put is bounded by the store's.
		_, err = f.store.Put(ctx, "org1/huge", &patternReader{n: testMaxObjectBytes + 1}, PutOptions{})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("over the store's limit: %v", err)
		}
		if n := f.leftovers(t); n != 0 {
			t.Fatalf("%d leftovers after refused puts", n)
		}
	}},
	{"a streamed body over the limit stores nothing, past a multipart part", func(t *testing.T, f fixture) {
		ctx := context.Background()
		pr, pw := io.Pipe()
		sent := make(chan int64, 1)
		go func() { n, err := io.Copy(pw, &patternReader{n: 40 << 20}); pw.CloseWithError(err); sent <- n }()
		_, err := f.store.Put(ctx, "org1/stream-big", pr, PutOptions{MaxBytes: 20 << 20})
		_ = pr.CloseWithError(errors.New("done"))
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("40 MiB with a limit of 20 MiB: %v", err)
		}
		if n := <-sent; n < 20<<20 {
			t.Fatalf("the store read %d bytes: the test did not stream past the first part", n)
		}
		if _, err := f.store.Stat(ctx, "org1/stream-big"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("the refused object is visible: %v", err)
		}
		if n := f.leftovers(t); n != 0 {
			t.Fatalf("%d leftovers (an unaborted upload or a blob)", n)
		}
	}},
	{"a body that differs from its declared size stores nothing", func(t *testing.T, f fixture) {
		ctx := context.Background()
		for _, c := range []struct {
			body string
			size int64
		}{{"abc", 5}, {"abcdef", 5}} {
			_, err := f.store.Put(ctx, "org1/sized", strings.NewReader(c.body), PutOptions{Size: c.size})
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("%d bytes declared as %d: %v", len(c.body), c.size, err)
			}
		}
		if _, err := f.store.Stat(ctx, "org1/sized"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a mis-sized object is visible: %v", err)
		}
		if _, err := f.store.Put(ctx, "org1/sized", strings.NewReader("abcde"), PutOptions{Size: 5}); err != nil {
			t.Fatalf("the declared size: %v", err)
		}
		if n := f.leftovers(t); n != 0 {
			t.Fatalf("%d leftovers", n)
		}
	}},
	{"a large object streams through a pipe without being held whole", func(t *testing.T, f fixture) {
		// The writer stops half way until bytes have reached the storage: a
		// backend that buffered the whole object before storing would wait
		// forever, and the test fails at the deadline.
		const total, half = 40 << 20, 24 << 20
		pr, pw := io.Pipe()
		sum := sha256.New()
		writerErr := make(chan error, 1)
		go func() {
			src := io.TeeReader(&patternReader{n: total}, sum)
			if _, err := io.CopyN(pw, src, half); err != nil {
				writerErr <- err
				pw.CloseWithError(err)
				return
			}
			deadline := time.Now().Add(20 * time.Second)
			for f.stored() == 0 {
				if time.Now().After(deadline) {
					err := errors.New("nothing reached the storage after 24 MiB: the body is buffered")
					writerErr <- err
					pw.CloseWithError(err)
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
			_, err := io.Copy(pw, src)
			writerErr <- err
			pw.CloseWithError(err)
		}()
		info, err := f.store.Put(context.Background(), "org1/exports/video.mp4", pr, PutOptions{ContentType: "video/mp4"})
		if werr := <-writerErr; werr != nil {
			t.Fatal(werr)
		}
		if err != nil {
			t.Fatal(err)
		}
		if info.Size != total {
			t.Fatalf("size %d, want %d", info.Size, total)
		}
		obj, err := f.store.Get(context.Background(), "org1/exports/video.mp4")
		if err != nil {
			t.Fatal(err)
		}
		defer obj.Body.Close()
		got := sha256.New()
		if n, err := io.Copy(got, obj.Body); err != nil || n != total {
			t.Fatalf("read back %d bytes: %v", n, err)
		}
		if !bytes.Equal(got.Sum(nil), sum.Sum(nil)) {
			t.Fatal("the object read back differs from the one written")
		}
	}},
	{"keys that could escape their namespace are refused everywhere", func(t *testing.T, f fixture) {
		ctx := context.Background()
		bad := []string{"", "/etc/passwd", "../outside", "org1/../../etc", "org1/./x", "org1//x", "org1/x/",
			"org1/\x00x", "org1/x\ny", "org1\\..\\x", "org1/\xff", strings.Repeat("a", MaxKeyBytes+1),
			"org1/" + strings.Repeat("s", MaxSegmentBytes+1), ".", ".."}
		for _, key := range bad {
			ops := map[string]error{}
			_, ops["put"] = f.store.Put(ctx, key, strings.NewReader("x"), PutOptions{})
			_, ops["get"] = f.store.Get(ctx, key)
			_, ops["stat"] = f.store.Stat(ctx, key)
			ops["delete"] = f.store.Delete(ctx, key)
			_, ops["presign upload"] = f.store.PresignUpload(ctx, key, UploadPolicy{ContentType: "text/plain"})
			_, ops["presign download"] = f.store.PresignDownload(ctx, key, DownloadOptions{})
			for op, err := range ops {
				if !errors.Is(err, ErrInvalidKey) {
					t.Errorf("%s %q: %v, want invalid key", op, key, err)
				}
			}
		}
		for _, prefix := range []string{"/", "/org1", "../", "org1/../", "org1//", "a\x00"} {
			if _, err := f.store.List(ctx, prefix, ListOptions{}); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("list %q: %v, want invalid key", prefix, err)
			}
		}
		// Unusual but harmless keys work.
		for _, key := range []string{"org1/ünïcødé file (1).pdf", "org1/with space/and:colon", "..x/x..", "org1/" + strings.Repeat("s", MaxSegmentBytes)} {
			mustPut(t, f.store, key, "ok", PutOptions{})
			if got := mustGet(t, f.store, key); got != "ok" {
				t.Errorf("%q read back %q", key, got)
			}
		}
	}},
	{"the content type is normalized and kept", func(t *testing.T, f fixture) {
		ctx := context.Background()
		for _, c := range []struct{ in, want string }{
			{"", DefaultContentType},
			{"image/png", "image/png"},
			{"Text/CSV; Charset=UTF-8", "text/csv; charset=UTF-8"},
			{"image/svg+xml", "image/svg+xml"},
		} {
			mustPut(t, f.store, "org1/typed", "x", PutOptions{ContentType: c.in})
			st, err := f.store.Stat(ctx, "org1/typed")
			if err != nil || st.ContentType != c.want {
				t.Fatalf("%q stored as %q (%v), want %q", c.in, st.ContentType, err, c.want)
			}
		}
		for _, ct := range []string{"text", "image/*", "a/b; c", "/png", strings.Repeat("x", 300) + "/y"} {
			if _, err := f.store.Put(ctx, "org1/bad-type", strings.NewReader("x"), PutOptions{ContentType: ct}); !errors.Is(err, ErrUnsupportedType) {
				t.Errorf("content type %q: %v", ct, err)
			}
		}
		for _, md := range []map[string]string{{"Upper": "x"}, {"-lead": "x"}, {"ok": "line\nbreak"}, {"big": strings.Repeat("v", 3000)}} {
			if _, err := f.store.Put(ctx, "org1/bad-md", strings.NewReader("x"), PutOptions{Metadata: md}); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("metadata %v: %v", md, err)
			}
		}
		if _, err := f.store.Stat(ctx, "org1/bad-type"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a refused object is visible: %v", err)
		}
	}},
	{"a canceled put stores nothing", func(t *testing.T, f fixture) {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		go func() {
			_, _ = pw.Write(bytes.Repeat([]byte("x"), 1000))
			cancel()
			_, _ = pw.Write([]byte("more"))
			_ = pw.Close()
		}()
		if _, err := f.store.Put(ctx, "org1/canceled", pr, PutOptions{}); err == nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled put: %v", err)
		}
		if _, err := f.store.Stat(context.Background(), "org1/canceled"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a canceled object is visible: %v", err)
		}
		if n := f.leftovers(t); n != 0 {
			t.Fatalf("%d leftovers", n)
		}
	}},
	{"presigning checks its inputs", func(t *testing.T, f fixture) {
		ctx := context.Background()
		for name, c := range map[string]struct {
			policy UploadPolicy
			want   error
		}{
			"no content type":           {UploadPolicy{}, ErrUnsupportedType},
			"a wildcard type":           {UploadPolicy{ContentType: "image/*"}, ErrUnsupportedType},
			"above the store's limit":   {UploadPolicy{ContentType: "image/png", MaxBytes: testMaxObjectBytes + 1}, ErrTooLarge},
			"a negative limit":          {UploadPolicy{ContentType: "image/png", MaxBytes: -1}, ErrInvalidArgument},
			"an expiry over seven days": {UploadPolicy{ContentType: "image/png", Expires: 8 * 24 * time.Hour}, ErrInvalidArgument},
		} {
			if _, err := f.store.PresignUpload(ctx, "org1/up", c.policy); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", name, err, c.want)
			}
		}
		up, err := f.store.PresignUpload(ctx, "org1/up", UploadPolicy{ContentType: "image/png", MaxBytes: 1000, Expires: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if up.URL == "" || up.MaxBytes != 1000 || up.ContentType != "image/png" || time.Until(up.ExpiresAt) < 59*time.Minute || time.Until(up.ExpiresAt) > 61*time.Minute {
			t.Fatalf("presigned upload = %+v", up)
		}
		if _, err := f.store.PresignDownload(ctx, "org1/missing", DownloadOptions{}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("download URL of a missing object: %v", err)
		}
		mustPut(t, f.store, "org1/there", "x", PutOptions{})
		if _, err := f.store.PresignDownload(ctx, "org1/there", DownloadOptions{Filename: "a/b"}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("a file name with a slash: %v", err)
		}
		if _, err := f.store.PresignDownload(ctx, "org1/there", DownloadOptions{Expires: -time.Second}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("a negative expiry: %v", err)
		}
	}},
	{"health is ok", func(t *testing.T, f fixture) {
		if err := f.store.Health(context.Background()); err != nil {
			t.Fatal(err)
		}
	}},
}

func mustPut(t *testing.T, s Store, key, body string, opts PutOptions) Info {
	t.Helper()
	info, err := s.Put(context.Background(), key, strings.NewReader(body), opts)
	if err != nil {
		t.Fatalf("put %q: %v", key, err)
	}
	return info
}

func mustGet(t *testing.T, s Store, key string) string {
	t.Helper()
	obj, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	return readAll(t, obj.Body)
}

func readAll(t *testing.T, r io.ReadCloser) string {
	t.Helper()
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// listAll follows the page tokens and returns every key and the page count.
func listAll(t *testing.T, s Store, prefix string, limit int) ([]string, int) {
	t.Helper()
	var keys []string
	var token string
	for pages := 1; ; pages++ {
		page, err := s.List(context.Background(), prefix, ListOptions{PageToken: token, Limit: limit})
		if err != nil {
			t.Fatalf("list %q: %v", prefix, err)
		}
		if limit > 0 && len(page.Objects) > limit {
			t.Fatalf("a page of %d entries with a limit of %d", len(page.Objects), limit)
		}
		for _, o := range page.Objects {
			keys = append(keys, o.Key)
		}
		if page.NextPageToken == "" {
			return keys, pages
		}
		if pages > 100 {
			t.Fatal("list does not end")
		}
		token = page.NextPageToken
	}
}

// patternReader yields n deterministic bytes without holding them.
type patternReader struct{ n, off int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), p.n-p.off)]
	for i := range b {
		x := p.off + int64(i)
		b[i] = byte(x*7 + x>>11)
	}
	p.off += int64(len(b))
	return len(b), nil
}

// failingReader fails the test when read: the store had to refuse first.
type failingReader struct{ t *testing.T }

func (f failingReader) Read([]byte) (int, error) {
	f.t.Error("the body was read although the declared size was over the limit")
	return 0, io.ErrUnexpectedEOF
}
