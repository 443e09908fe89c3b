package objectstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func openS3Store(t *testing.T, f *fakeS3, edit func(*Config)) Store {
	t.Helper()
	c := f.config()
	c.MaxObjectBytes = testMaxObjectBytes
	if edit != nil {
		edit(&c)
	}
	s, err := Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// postForm sends a browser-style POST upload: the presigned fields (fields
// may override or add some), then the file.
func postForm(t *testing.T, up PresignedUpload, fields map[string]string, file []byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	all := map[string]string{}
	for k, v := range up.Fields {
		all[k] = v
	}
	for k, v := range fields {
		all[k] = v
	}
	for k, v := range all {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := w.CreateFormFile("file", "upload.bin")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(file)
	_ = w.Close()
	res, err := http.Post(up.URL, w.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

// The S3 upload URL is a POST policy that binds key, bucket, content type,
// size range and expiry; an S3 that enforces the policy (the checker in
// front of gofakes3, written from AWS's rules) accepts exactly the uploads
// the policy allows.
func TestS3PresignedUploadIsASignedPostPolicy(t *testing.T) {
	f := newFakeS3(t)
	s := openS3Store(t, f, nil)
	key := "org1/publishing/media/01J0XYZ"
	up, err := s.PresignUpload(context.Background(), key, UploadPolicy{ContentType: "image/png", MaxBytes: 1000, Expires: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if up.Method != http.MethodPost || up.URL != f.URL+"/"+f.Bucket+"/" || up.Fields["key"] != key || up.Fields["Content-Type"] != "image/png" {
		t.Fatalf("presigned = %+v", up)
	}
	raw, err := base64.StdEncoding.DecodeString(up.Fields["policy"])
	if err != nil {
		t.Fatal(err)
	}
	var policy struct {
		Expiration time.Time `json:"expiration"`
		Conditions [][]any   `json:"conditions"`
	}
	if err := json.Unmarshal(raw, &policy); err != nil {
		t.Fatalf("policy %s: %v", raw, err)
	}
	if policy.Expiration.Sub(up.ExpiresAt).Abs() > time.Second || time.Until(policy.Expiration) < 9*time.Minute {
		t.Fatalf("policy expires %v, URL %v", policy.Expiration, up.ExpiresAt)
	}
	conds := fmt.Sprint(policy.Conditions)
	for _, want := range []string{"[eq $key " + key + "]", "[eq $bucket objects]", "[eq $Content-Type image/png]", "[content-length-range 0 1000]"} {
		if !strings.Contains(conds, want) {
			t.Errorf("policy conditions %s lack %s", conds, want)
		}
	}

	widened := bytes.Replace(raw, []byte(`"content-length-range", 0, 1000]`), []byte(`"content-length-range", 0, 100000]`), 1)
	if bytes.Equal(widened, raw) {
		t.Fatalf("no content-length-range to widen in %s", raw)
	}
	for _, c := range []struct {
		name   string
		fields map[string]string
		file   []byte
		code   string
	}{
		{"a file over the maximum", nil, bytes.Repeat([]byte("x"), 1001), "EntityTooLarge"},
		{"another content type", map[string]string{"Content-Type": "text/html"}, []byte("<html>"), "AccessDenied"},
		{"another key", map[string]string{"key": "org2/publishing/media/evil"}, []byte("x"), "AccessDenied"},
		{"a larger size in the policy", map[string]string{"policy": base64.StdEncoding.EncodeToString(widened)}, []byte("x"), "SignatureDoesNotMatch"},
	} {
		res := postForm(t, up, c.fields, c.file)
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "<Code>"+c.code+"</Code>") {
			t.Errorf("%s: %d %s", c.name, res.StatusCode, b)
		}
	}
	for _, k := range []string{key, "org2/publishing/media/evil"} {
		if _, err := s.Stat(context.Background(), k); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a refused upload stored %s: %v", k, err)
		}
	}

	png := []byte("\x89PNG\r\n\x1a\n image")
	if res := postForm(t, up, nil, png); res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("upload: %d %s", res.StatusCode, b)
	}
	st, err := s.Stat(context.Background(), key)
	if err != nil || st.ContentType != "image/png" || st.Size != int64(len(png)) {
		t.Fatalf("stored %+v, %v", st, err)
	}
}

func TestS3PresignedDownload(t *testing.T) {
	f := newFakeS3(t)
	s := openS3Store(t, f, nil)
	ctx := context.Background()
	mustPut(t, s, "org1/design/page.html", "<script>alert(1)</script>", PutOptions{ContentType: "text/html"})
	mustPut(t, s, "org1/design/preview.png", "png", PutOptions{ContentType: "image/png"})

	for _, c := range []struct {
		key, filename, disposition string
	}{
		{"org1/design/page.html", "", "attachment"},
		{"org1/design/preview.png", "", ""},
		{"org1/design/preview.png", "cover.png", "attachment; filename=cover.png"},
	} {
		d, err := s.PresignDownload(ctx, c.key, DownloadOptions{Filename: c.filename, Expires: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(d.URL)
		q := u.Query()
		if q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" || q.Get("X-Amz-Expires") != "120" || q.Get("X-Amz-SignedHeaders") != "host" ||
			!strings.HasPrefix(q.Get("X-Amz-Credential"), f.AccessKey+"/") || q.Get("response-content-disposition") != c.disposition {
			t.Fatalf("%s: presigned query %v", c.key, q)
		}
		if time.Until(d.ExpiresAt) < 119*time.Second || time.Until(d.ExpiresAt) > 121*time.Second {
			t.Fatalf("expires at %v", d.ExpiresAt)
		}
		res, err := http.Get(d.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(b) == 0 {
			t.Fatalf("%s: %d %s", c.key, res.StatusCode, b)
		}
		// Serving inline instead is a tampered URL.
		q.Set("response-content-disposition", "inline")
		u.RawQuery = q.Encode()
		res, err = http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("%s tampered: %d", c.key, res.StatusCode)
		}
	}

	d, err := s.PresignDownload(ctx, "org1/design/preview.png", DownloadOptions{Expires: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	res, err := http.Get(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("expired URL: %d", res.StatusCode)
	}
}

// The checker in front of gofakes3 really checks signatures: the wrong
// secret is refused, and the store reports it as unavailable.
func TestS3RefusedCredentialsAreUnavailable(t *testing.T) {
	f := newFakeS3(t)
	s := openS3Store(t, f, func(c *Config) { c.SecretAccessKey = "not-the-secret" })
	if _, err := s.Put(context.Background(), "org1/x", strings.NewReader("x"), PutOptions{}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("put with a wrong secret: %v", err)
	}
	if err := s.Health(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("health with a wrong secret: %v", err)
	}
	good := openS3Store(t, f, nil)
	if _, err := good.Stat(context.Background(), "org1/x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the refused put stored something: %v", err)
	}
}

func TestS3HealthReportsAMissingBucketAndADeadEndpoint(t *testing.T) {
	f := newFakeS3(t)
	f.Bucket = "no-such-bucket"
	if err := openS3Store(t, f, nil).Health(context.Background()); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing bucket: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	_ = l.Close()
	s, err := Open(context.Background(), Config{URL: "s3://objects?endpoint=" + dead + "&secure=false", AccessKeyID: "a", SecretAccessKey: "b"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := s.Health(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("dead endpoint health: %v", err)
	}
	if _, err := s.Stat(ctx, "org1/x"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("dead endpoint stat: %v (a dead store must not look like a missing object)", err)
	}
}
