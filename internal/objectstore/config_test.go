package objectstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	c := Config{DataDir: "/var/lib/platform"}.WithDefaults()
	if c.URL != "file:///var/lib/platform/objects" || c.MaxObjectBytes != DefaultMaxObjectBytes ||
		c.UploadURLExpiry != DefaultURLExpiry || c.DownloadURLExpiry != DefaultURLExpiry {
		t.Fatalf("defaults = %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("the defaults are invalid: %v", err)
	}
	rel := Config{}.WithDefaults()
	if !filepath.IsAbs(rel.DataDir) || !strings.HasPrefix(rel.URL, "file:///") || !strings.HasSuffix(rel.URL, "/data/objects") {
		t.Fatalf("relative default = %q %q", rel.DataDir, rel.URL)
	}
}

func TestConfigValidate(t *testing.T) {
	key := []SigningKey{testSigningKey}
	s3 := func(u string) Config {
		return Config{URL: u, AccessKeyID: "id", SecretAccessKey: "secret"}
	}
	for _, c := range []struct {
		name string
		cfg  Config
		want string // "" for valid
	}{
		{"file", Config{URL: "file:///srv/objects"}, ""},
		{"s3 with everything", s3("s3://media-prod?endpoint=minio:9000&region=eu-west-1&secure=false"), ""},
		{"s3 on AWS", s3("s3://media-prod"), ""},
		{"production file store with key and URL", Config{URL: "file:///srv/o", Production: true, SigningKeys: key, PublicURL: "https://files.example.com/objects"}, ""},
		{"production S3 needs no signing key", func() Config { c := s3("s3://media"); c.Production = true; return c }(), ""},
		{"unknown scheme", Config{URL: "gs://bucket"}, "unknown scheme"},
		{"no scheme", Config{URL: "/srv/objects"}, "no scheme"},
		{"relative file path", Config{URL: "file://objects"}, "names no host"},
		{"file root", Config{URL: "file:///"}, "absolute and not the root"},
		{"file with a query", Config{URL: "file:///srv/o?x=1"}, "takes no query"},
		{"s3 without a bucket", s3("s3://?endpoint=minio:9000"), "names no bucket"},
		{"s3 with a bad bucket", s3("s3://Bad_Bucket"), "not a valid bucket name"},
		{"s3 with a path", s3("s3://bucket/prefix"), "names only the bucket"},
		{"s3 with an unknown parameter", s3("s3://bucket?endpint=x"), `unknown parameter "endpint"`},
		{"s3 with a bad secure flag", s3("s3://bucket?secure=maybe"), "secure must be true or false"},
		{"s3 without credentials", Config{URL: "s3://bucket"}, "AWS_ACCESS_KEY_ID"},
		{"production file store without a signing key", Config{URL: "file:///srv/o", Production: true, PublicURL: "https://f.example.com/o"}, "OBJECTSTORE_SIGNING_KEY is required"},
		{"production file store without a public URL", Config{URL: "file:///srv/o", Production: true, SigningKeys: key}, "OBJECTSTORE_PUBLIC_URL is required"},
		{"a short signing secret", Config{URL: "file:///srv/o", SigningKeys: []SigningKey{{ID: "k", Secret: []byte("short")}}}, "at least 32 bytes"},
		{"a public URL with a query", Config{URL: "file:///srv/o", PublicURL: "https://f.example.com/o?x=1"}, "OBJECTSTORE_PUBLIC_URL"},
		{"a public URL that is not http", Config{URL: "file:///srv/o", PublicURL: "ftp://f.example.com/o"}, "OBJECTSTORE_PUBLIC_URL"},
		{"a negative maximum", Config{URL: "file:///srv/o", MaxObjectBytes: -1}, "must be positive"},
		{"an expiry over seven days", Config{URL: "file:///srv/o", UploadURLExpiry: 8 * 24 * time.Hour}, "at most 7 days"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.WithDefaults().Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("valid config refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	// Every problem at once.
	err := Config{URL: "s3://", MaxObjectBytes: -1}.WithDefaults().Validate()
	if n := strings.Count(err.Error(), "\n") + 1; n < 3 {
		t.Fatalf("%d problems named: %v", n, err)
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv("OBJECTSTORE_URL", "s3://media?endpoint=127.0.0.1:9000&secure=false")
	t.Setenv("OBJECTSTORE_SIGNING_KEY", "new:"+strings.Repeat("n", 40)+", old:"+strings.Repeat("o", 40))
	t.Setenv("OBJECTSTORE_PUBLIC_URL", "https://files.example.com/objects")
	t.Setenv("OBJECTSTORE_MAX_OBJECT_BYTES", "1048576")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKID")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "SECRET")
	t.Setenv("PLATFORM_ENV", "production")
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "s3://media?endpoint=127.0.0.1:9000&secure=false" || c.PublicURL != "https://files.example.com/objects" ||
		c.MaxObjectBytes != 1<<20 || c.AccessKeyID != "AKID" || c.SecretAccessKey != "SECRET" || !c.Production ||
		len(c.SigningKeys) != 2 || c.SigningKeys[0].ID != "new" || c.SigningKeys[1].ID != "old" {
		t.Fatalf("from env = %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// A Config printed in a log shows no secret.
	if s := fmt.Sprintf("%v %+v %#v", c.SigningKeys, c.SigningKeys, c.SigningKeys); strings.Contains(s, "nnnn") || strings.Contains(s, "oooo") {
		t.Fatalf("a signing secret is printed: %s", s)
	}

	t.Setenv("OBJECTSTORE_MAX_OBJECT_BYTES", "lots")
	t.Setenv("OBJECTSTORE_SIGNING_KEY", "k:short")
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "OBJECTSTORE_MAX_OBJECT_BYTES") || !strings.Contains(err.Error(), "at least 32 bytes") {
		t.Fatalf("bad env: %v", err)
	}
}

func TestParseSigningKeys(t *testing.T) {
	secret := strings.Repeat("s", 32)
	for _, c := range []struct {
		in   string
		ids  []string
		fail bool
	}{
		{secret, []string{"default"}, false},
		{"a:" + secret + ",b:" + secret, []string{"a", "b"}, false},
		{" a:" + secret + " , ", []string{"a"}, false},
		{"a:" + secret + ",a:" + secret, nil, true},
		{"bad id:" + secret, nil, true},
		{"a:tooshort", nil, true},
	} {
		keys, err := ParseSigningKeys(c.in)
		if (err != nil) != c.fail {
			t.Fatalf("%q: %v", c.in, err)
		}
		if c.fail {
			continue
		}
		var ids []string
		for _, k := range keys {
			ids = append(ids, k.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(c.ids) {
			t.Fatalf("%q: ids %v, want %v", c.in, ids, c.ids)
		}
	}
}

func TestOpenRefusesInvalidConfigAndReturnsANilStore(t *testing.T) {
	s, err := Open(context.Background(), Config{URL: "s3://bucket"})
	if err == nil || s != nil {
		t.Fatalf("Open = %v, %v", s, err)
	}
	s, err = Open(context.Background(), Config{URL: "file:///proc/objectstore-cannot-exist"})
	if err == nil || s != nil || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Open of an uncreatable directory = %v, %v", s, err)
	}
}
