package objectstore

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is the time the local store signs and checks expiries with.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var testSigningKey = SigningKey{ID: "k2026", Secret: []byte("0123456789abcdef0123456789abcdef-test")}

// handlerFixture is a local store served by its Handler over real HTTP.
type handlerFixture struct {
	store   *Local
	dir     string
	clock   *fakeClock
	srv     *httptest.Server
	handler http.Handler
}

func newHandlerFixture(t *testing.T, keys ...SigningKey) *handlerFixture {
	t.Helper()
	if len(keys) == 0 {
		keys = []SigningKey{testSigningKey}
	}
	f := &handlerFixture{dir: t.TempDir(), clock: &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.handler.ServeHTTP(w, r) }))
	t.Cleanup(f.srv.Close)
	s, err := Open(context.Background(), Config{URL: "file://" + f.dir, PublicURL: f.srv.URL + "/objects",
		SigningKeys: keys, Clock: f.clock.Now, MaxObjectBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	f.store = s.(*Local)
	f.handler = f.store.Handler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	return f
}

func (f *handlerFixture) presignUpload(t *testing.T, key string, p UploadPolicy) PresignedUpload {
	t.Helper()
	up, err := f.store.PresignUpload(context.Background(), key, p)
	if err != nil {
		t.Fatal(err)
	}
	return up
}

func (f *handlerFixture) presignDownload(t *testing.T, key string, o DownloadOptions) string {
	t.Helper()
	d, err := f.store.PresignDownload(context.Background(), key, o)
	if err != nil {
		t.Fatal(err)
	}
	return d.URL
}

// assertNothingStored checks that no object, blob or temporary file exists
// for key: a refused upload left no byte behind.
func (f *handlerFixture) assertNothingStored(t *testing.T, key string) {
	t.Helper()
	if _, err := f.store.Stat(context.Background(), key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%s is stored: %v", key, err)
	}
	if blobs, metas, temps := countLocalFiles(t, f.dir); blobs != metas || temps != 0 {
		t.Fatalf("files left: %d blobs for %d objects, %d temporary", blobs, metas, temps)
	}
}

func send(t *testing.T, method, target, contentType string, body io.Reader, length int64) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.ContentLength = length
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

// assertProblem checks a platform problem answer and returns its code.
func assertProblem(t *testing.T, res *http.Response, status int, code string) {
	t.Helper()
	if res.StatusCode != status {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d, want %d: %s", res.StatusCode, status, b)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q", ct)
	}
	var p map[string]any
	if err := json.NewDecoder(res.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	if p["code"] != code || p["status"] != float64(status) || p["type"] != "https://platform.local/problems/"+code ||
		p["title"] == "" || p["request_id"] == "" || p["request_id"] == nil {
		t.Fatalf("problem = %v, want code %s", p, code)
	}
}

func TestHandlerUploadThenDownload(t *testing.T) {
	f := newHandlerFixture(t)
	key := "org1/publishing/media/01J0ABC"
	up := f.presignUpload(t, key, UploadPolicy{ContentType: "image/png", MaxBytes: 1000, Expires: 10 * time.Minute})
	if up.Method != http.MethodPut || up.Headers["Content-Type"] != "image/png" || !strings.HasPrefix(up.URL, f.srv.URL+"/objects/org1/publishing/media/01J0ABC?") {
		t.Fatalf("presigned = %+v", up)
	}
	png := "\x89PNG\r\n\x1a\n fake image bytes"
	res := send(t, up.Method, up.URL, up.Headers["Content-Type"], strings.NewReader(png), int64(len(png)))
	if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == "" {
		t.Fatalf("upload: %d %v", res.StatusCode, res.Header)
	}
	st, err := f.store.Stat(context.Background(), key)
	if err != nil || st.ContentType != "image/png" || st.Size != int64(len(png)) || strconv.Quote(st.ETag) != res.Header.Get("ETag") {
		t.Fatalf("stored %+v, %v", st, err)
	}

	get := send(t, http.MethodGet, f.presignDownload(t, key, DownloadOptions{Expires: time.Minute}), "", nil, 0)
	body, _ := io.ReadAll(get.Body)
	h := get.Header
	if get.StatusCode != http.StatusOK || string(body) != png {
		t.Fatalf("download: %d %q", get.StatusCode, body)
	}
	for name, want := range map[string]string{
		"Content-Type": "image/png", "X-Content-Type-Options": "nosniff", "Content-Disposition": "",
		"Content-Security-Policy": "default-src 'none'; sandbox", "ETag": res.Header.Get("ETag"),
		"Cache-Control": "private, max-age=60",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	head := send(t, http.MethodHead, f.presignDownload(t, key, DownloadOptions{}), "", nil, 0)
	if head.StatusCode != http.StatusOK || head.ContentLength != int64(len(png)) || head.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("head: %d %d %v", head.StatusCode, head.ContentLength, head.Header)
	}
	req, _ := http.NewRequest(http.MethodGet, f.presignDownload(t, key, DownloadOptions{}), nil)
	req.Header.Set("Range", "bytes=0-3")
	part, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer part.Body.Close()
	if b, _ := io.ReadAll(part.Body); part.StatusCode != http.StatusPartialContent || string(b) != png[:4] {
		t.Fatalf("range: %d %q", part.StatusCode, b)
	}
}

func TestHandlerRefusesTooLargeByContentLengthBeforeReading(t *testing.T) {
	f := newHandlerFixture(t)
	up := f.presignUpload(t, "org1/contacts/att/1", UploadPolicy{ContentType: "application/pdf", MaxBytes: 10})
	// Straight to the handler, so that a read of the body is seen.
	req := httptest.NewRequest(http.MethodPut, up.URL, failingReader{t})
	req.Header.Set("Content-Type", "application/pdf")
	req.ContentLength = 11
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	assertProblem(t, rec.Result(), http.StatusRequestEntityTooLarge, "payload_too_large")
	f.assertNothingStored(t, "org1/contacts/att/1")

	// And over the wire, with a real body.
	res := send(t, up.Method, up.URL, "application/pdf", strings.NewReader("12345678901"), 11)
	assertProblem(t, res, http.StatusRequestEntityTooLarge, "payload_too_large")
	f.assertNothingStored(t, "org1/contacts/att/1")
}

func TestHandlerRefusesTooLargeChunkedBodyAndKeepsNothing(t *testing.T) {
	f := newHandlerFixture(t)
	up := f.presignUpload(t, "org1/contacts/att/2", UploadPolicy{ContentType: "text/csv", MaxBytes: 100 << 10})
	// No Content-Length: the body is chunked and the limit is found while
	// streaming, after some of it has been written.
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, &patternReader{n: 1 << 20})
		pw.CloseWithError(err)
	}()
	res := send(t, up.Method, up.URL, "text/csv", pr, -1)
	_ = pr.CloseWithError(errors.New("test done"))
	assertProblem(t, res, http.StatusRequestEntityTooLarge, "payload_too_large")
	f.assertNothingStored(t, "org1/contacts/att/2")

	// A chunked body within the limit is stored.
	res = send(t, up.Method, up.URL, "text/csv", io.MultiReader(strings.NewReader("a,b\n"), strings.NewReader("1,2\n")), -1)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("chunked within the limit: %d", res.StatusCode)
	}
	if got := mustGet(t, f.store, "org1/contacts/att/2"); got != "a,b\n1,2\n" {
		t.Fatalf("stored %q", got)
	}
}

func TestHandlerRefusesAnotherContentType(t *testing.T) {
	f := newHandlerFixture(t)
	up := f.presignUpload(t, "org1/media/3", UploadPolicy{ContentType: "image/png", MaxBytes: 100})
	for _, ct := range []string{"image/jpeg", "", "text/html", "image/png; charset=utf-8", "image/png, text/html", ";;"} {
		req := httptest.NewRequest(http.MethodPut, up.URL, failingReader{t})
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		req.ContentLength = 5
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		assertProblem(t, rec.Result(), http.StatusUnsupportedMediaType, "unsupported_media_type")
	}
	f.assertNothingStored(t, "org1/media/3")
	// The signed type, in another case, is the same type.
	if res := send(t, up.Method, up.URL, "IMAGE/PNG", strings.NewReader("x"), 1); res.StatusCode != http.StatusOK {
		t.Fatalf("IMAGE/PNG: %d", res.StatusCode)
	}
}

func TestHandlerRefusesTamperedURLs(t *testing.T) {
	f := newHandlerFixture(t)
	mustPut(t, f.store, "org1/media/4", "existing", PutOptions{ContentType: "image/png"})
	up := f.presignUpload(t, "org1/media/4", UploadPolicy{ContentType: "image/png", MaxBytes: 100})
	down := f.presignDownload(t, "org1/media/4", DownloadOptions{})
	withQuery := func(raw, name, value string) string {
		u, _ := url.Parse(raw)
		q := u.Query()
		if value == "" {
			q.Del(name)
		} else {
			q.Set(name, value)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	flip := func(sig string) string {
		b := []byte(sig)
		if b[3] == 'A' {
			b[3] = 'B'
		} else {
			b[3] = 'A'
		}
		return string(b)
	}
	q, _ := url.Parse(up.URL)
	sig := q.Query().Get(paramSignature)
	cases := []struct {
		name, method, url, ct string
	}{
		{"a later expiry", http.MethodPut, withQuery(up.URL, paramExpires, strconv.FormatInt(f.clock.Now().Add(time.Hour*24).Unix(), 10)), "image/png"},
		{"a larger size", http.MethodPut, withQuery(up.URL, paramMaxBytes, "1000000"), "image/png"},
		{"another type", http.MethodPut, withQuery(up.URL, paramContentType, "text/html"), "text/html"},
		{"another key", http.MethodPut, strings.Replace(up.URL, "/org1/media/4?", "/org2/media/4?", 1), "image/png"},
		{"a changed signature", http.MethodPut, withQuery(up.URL, paramSignature, flip(sig)), "image/png"},
		{"no signature", http.MethodPut, withQuery(up.URL, paramSignature, ""), "image/png"},
		{"garbage signature", http.MethodPut, withQuery(up.URL, paramSignature, "%%%"), "image/png"},
		{"an unknown key id", http.MethodPut, withQuery(up.URL, paramKeyID, "other"), "image/png"},
		{"no expiry", http.MethodPut, withQuery(up.URL, paramExpires, ""), "image/png"},
		{"the upload URL used to download", http.MethodGet, up.URL, ""},
		{"the download URL used to upload", http.MethodPut, down, "image/png"},
		{"a disposition added to a download", http.MethodGet, withQuery(down, paramDisposition, "inline"), ""},
		{"no query at all", http.MethodGet, f.srv.URL + "/objects/org1/media/4", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := send(t, c.method, c.url, c.ct, strings.NewReader("evil"), 4)
			assertProblem(t, res, http.StatusForbidden, "signature_invalid")
		})
	}
	if got := mustGet(t, f.store, "org1/media/4"); got != "existing" {
		t.Fatalf("the object changed: %q", got)
	}
	if _, err := f.store.Stat(context.Background(), "org2/media/4"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another key was written: %v", err)
	}
}

func TestHandlerRefusesExpiredURLs(t *testing.T) {
	f := newHandlerFixture(t)
	mustPut(t, f.store, "org1/exports/5", "report", PutOptions{ContentType: "application/pdf"})
	up := f.presignUpload(t, "org1/exports/6", UploadPolicy{ContentType: "application/pdf", Expires: time.Minute})
	down := f.presignDownload(t, "org1/exports/5", DownloadOptions{Expires: time.Minute})
	f.clock.Advance(59 * time.Second)
	if res := send(t, http.MethodGet, down, "", nil, 0); res.StatusCode != http.StatusOK {
		t.Fatalf("before expiry: %d", res.StatusCode)
	}
	f.clock.Advance(time.Second)
	assertProblem(t, send(t, http.MethodGet, down, "", nil, 0), http.StatusForbidden, "signature_expired")
	assertProblem(t, send(t, up.Method, up.URL, "application/pdf", strings.NewReader("x"), 1), http.StatusForbidden, "signature_expired")
	f.assertNothingStored(t, "org1/exports/6")
}

// An upload URL may be used again until it expires (as S3's are), never
// after: a replay then is refused and the object stays as it was.
func TestHandlerRefusesAReplayedUploadAfterExpiry(t *testing.T) {
	f := newHandlerFixture(t)
	up := f.presignUpload(t, "org1/media/7", UploadPolicy{ContentType: "text/plain", Expires: 5 * time.Minute})
	if res := send(t, up.Method, up.URL, "text/plain", strings.NewReader("first"), 5); res.StatusCode != http.StatusOK {
		t.Fatalf("first upload: %d", res.StatusCode)
	}
	f.clock.Advance(5*time.Minute + time.Second)
	assertProblem(t, send(t, up.Method, up.URL, "text/plain", strings.NewReader("replay"), 6), http.StatusForbidden, "signature_expired")
	if got := mustGet(t, f.store, "org1/media/7"); got != "first" {
		t.Fatalf("after the replay: %q", got)
	}
}

func TestHandlerServesActiveContentAsAttachment(t *testing.T) {
	f := newHandlerFixture(t)
	for _, c := range []struct {
		contentType, filename, disposition string
	}{
		{"text/html; charset=utf-8", "", "attachment"},
		{"image/svg+xml", "", "attachment"},
		{"application/xml", "", "attachment"},
		{"text/xml", "", "attachment"},
		{"application/atom+xml", "", "attachment"},
		{"application/xhtml+xml", "", "attachment"},
		{"text/javascript", "", "attachment"},
		{"image/png", "", ""},
		{"text/plain", "", ""},
		{"video/mp4", "", ""},
		{"application/pdf", "report 2026.pdf", `attachment; filename="report 2026.pdf"`},
		{"text/csv", "contacts-é.csv", "attachment; filename*=utf-8''contacts-%C3%A9.csv"},
	} {
		key := "org1/design/" + strings.NewReplacer("/", "-", ";", "", " ", "", "=", "").Replace(c.contentType)
		mustPut(t, f.store, key, "<svg onload=alert(1)>", PutOptions{ContentType: c.contentType})
		res := send(t, http.MethodGet, f.presignDownload(t, key, DownloadOptions{Filename: c.filename}), "", nil, 0)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", c.contentType, res.StatusCode)
		}
		if got := res.Header.Get("Content-Disposition"); got != c.disposition {
			t.Errorf("%s: Content-Disposition %q, want %q", c.contentType, got, c.disposition)
		}
		if res.Header.Get("Content-Type") != c.contentType || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %v", c.contentType, res.Header)
		}
	}
}

func TestHandlerRefusesTraversal(t *testing.T) {
	f := newHandlerFixture(t)
	outside := filepath.Join(filepath.Dir(f.dir), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(outside) })
	// Signed with the store's own key, so that only key validation stands
	// between the request and the file system.
	signed := func(method, key string) string {
		g := grant{Method: method, Key: key, Expires: f.clock.Now().Add(time.Hour).Unix()}
		if method == http.MethodPut {
			g.MaxBytes, g.ContentType = 100, "text/plain"
		}
		kid, sig := f.store.signer.sign(g)
		q := url.Values{paramExpires: {strconv.FormatInt(g.Expires, 10)}, paramKeyID: {kid}, paramSignature: {sig}}
		if method == http.MethodPut {
			q.Set(paramMaxBytes, "100")
			q.Set(paramContentType, "text/plain")
		}
		return q.Encode()
	}
	for _, target := range []string{
		"/objects/../secret.txt", "/objects/..%2fsecret.txt", "/objects/%2e%2e/secret.txt", "/objects/a/../../secret.txt",
		"/objects//etc/passwd", "/objects/%2Fetc%2Fpasswd", "/objects/a%00b", "/objects/a%5c..%5c..%5csecret.txt",
		"/objects/./x", "/objects/", "/objectsX/a", "/elsewhere/a",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPut} {
			key, _ := url.PathUnescape(strings.TrimPrefix(target, "/objects/"))
			req := httptest.NewRequest(method, "http://files.test"+target+"?"+signed(method, key), strings.NewReader("pwned"))
			req.Header.Set("Content-Type", "text/plain")
			rec := httptest.NewRecorder()
			f.handler.ServeHTTP(rec, req)
			if rec.Code != http.StatusBadRequest && rec.Code != http.StatusNotFound {
				t.Errorf("%s %s: %d %s", method, target, rec.Code, rec.Body)
			}
			if strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("%s %s leaked the file", method, target)
			}
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret" {
		t.Fatalf("the outside file changed: %q", b)
	}
	if blobs, metas, temps := countLocalFiles(t, f.dir); blobs+metas+temps != 0 {
		t.Fatalf("something was stored: %d %d %d", blobs, metas, temps)
	}
}

func TestHandlerRefusesOtherMethodsAndInterruptedBodies(t *testing.T) {
	f := newHandlerFixture(t)
	up := f.presignUpload(t, "org1/media/8", UploadPolicy{ContentType: "text/plain", MaxBytes: 100})
	for _, m := range []string{http.MethodPost, http.MethodDelete, http.MethodPatch} {
		res := send(t, m, up.URL, "text/plain", strings.NewReader("x"), 1)
		if res.Header.Get("Allow") != "GET, HEAD, PUT" {
			t.Errorf("%s: Allow %q", m, res.Header.Get("Allow"))
		}
		assertProblem(t, res, http.StatusMethodNotAllowed, "method_not_allowed")
	}
	// A client that promised 50 bytes and hung up after 20.
	req := httptest.NewRequest(http.MethodPut, up.URL, io.MultiReader(strings.NewReader(strings.Repeat("x", 20)), errReader{io.ErrUnexpectedEOF}))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set(headerRequestID, "req-123")
	req.ContentLength = 50
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	assertProblem(t, rec.Result(), http.StatusBadRequest, "invalid_input")
	if rec.Header().Get(headerRequestID) != "req-123" {
		t.Fatalf("request id not echoed: %v", rec.Header())
	}
	f.assertNothingStored(t, "org1/media/8")
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Rotation: a URL signed with the old key works while the old key is still
// configured (second), and stops once it is removed.
func TestHandlerVerifiesWithRotatedKeys(t *testing.T) {
	old := SigningKey{ID: "old", Secret: []byte("old-secret-old-secret-old-secret-0")}
	next := SigningKey{ID: "new", Secret: []byte("new-secret-new-secret-new-secret-1")}
	f := newHandlerFixture(t, old)
	mustPut(t, f.store, "org1/x", "x", PutOptions{})
	u, _ := url.Parse(f.presignDownload(t, "org1/x", DownloadOptions{}))
	path := u.RequestURI()
	for _, c := range []struct {
		keys []SigningKey
		want int
	}{
		{[]SigningKey{next, old}, http.StatusOK},
		{[]SigningKey{next}, http.StatusForbidden},
	} {
		f.store.signer = signer{keys: c.keys}
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != c.want {
			t.Fatalf("keys %v: %d, want %d", c.keys, rec.Code, c.want)
		}
	}
	f.store.signer = signer{keys: []SigningKey{next, old}}
	if u2, _ := url.Parse(f.presignDownload(t, "org1/x", DownloadOptions{})); u2.Query().Get(paramKeyID) != "new" {
		t.Fatalf("signed with %q, want the first key", u2.Query().Get(paramKeyID))
	}
}

// Handler finds the mount path of a local store and nothing for S3; the
// handler works behind a ServeMux at that path.
func TestHandlerMountsAtThePublicPath(t *testing.T) {
	f := newHandlerFixture(t)
	path, h := Handler(f.store, nil)
	if path != "/objects/" || h == nil {
		t.Fatalf("Handler = %q, %v", path, h)
	}
	mux := http.NewServeMux()
	mux.Handle(path, h)
	f.handler = mux
	mustPut(t, f.store, "org1/y", "y", PutOptions{})
	if res := send(t, http.MethodGet, f.presignDownload(t, "org1/y", DownloadOptions{}), "", nil, 0); res.StatusCode != http.StatusOK {
		t.Fatalf("through the mux: %d", res.StatusCode)
	}
	fs := newFakeS3(t)
	s3, err := Open(context.Background(), fs.config())
	if err != nil {
		t.Fatal(err)
	}
	if p, h := Handler(s3, nil); p != "" || h != nil {
		t.Fatal("an S3 store has no handler")
	}
	// Without a public URL the local store cannot sign.
	bare, err := Open(context.Background(), Config{URL: "file://" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if _, err := bare.PresignUpload(context.Background(), "a/b", UploadPolicy{ContentType: "text/plain"}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("presign without a public URL: %v", err)
	}
	if p, h := Handler(bare, nil); p != "" || h != nil {
		t.Fatal("a store without a public URL has no handler")
	}
}

// Keys with spaces, non-ASCII letters and URL-significant characters survive
// the trip through a signed URL.
func TestHandlerKeepsUnusualKeysIntact(t *testing.T) {
	f := newHandlerFixture(t)
	for _, key := range []string{"org1/ünï cødé/x+y.pdf", "org1/a%2Fb/c?d#e", "org1/semi;colon/=&"} {
		up := f.presignUpload(t, key, UploadPolicy{ContentType: "application/pdf"})
		if res := send(t, up.Method, up.URL, "application/pdf", strings.NewReader(key), int64(len(key))); res.StatusCode != http.StatusOK {
			t.Fatalf("%q: upload %d", key, res.StatusCode)
		}
		if got := mustGet(t, f.store, key); got != key {
			t.Fatalf("%q stored %q", key, got)
		}
		res := send(t, http.MethodGet, f.presignDownload(t, key, DownloadOptions{}), "", nil, 0)
		if b, _ := io.ReadAll(res.Body); res.StatusCode != http.StatusOK || string(b) != key {
			t.Fatalf("%q: download %d %q", key, res.StatusCode, b)
		}
	}
	keys, _ := listAll(t, f.store, "org1/", 0)
	if len(keys) != 3 {
		t.Fatalf("keys = %q", keys)
	}
}
