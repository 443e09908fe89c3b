package objectstore

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/domain/text"
)

// Config chooses and bounds the object store. Zero values take the defaults
// of WithDefaults.
type Config struct {
	// URL chooses the backend (OBJECTSTORE_URL):
	//   file:///abs/path  a local directory (the default: <DataDir>/objects)
	//   s3://bucket?endpoint=host:port&region=us-east-1&secure=true
	// endpoint defaults to s3.amazonaws.com, region to us-east-1, secure to
	// true; any other query parameter is refused.
	URL string
	// DataDir is the platform's data directory (PLATFORM_DATA_DIR, default
	// ./data made absolute); the default URL lies under it.
	DataDir string
	// PublicURL is where the local backend's Handler is reachable from
	// clients, e.g. https://files.example.com/objects (OBJECTSTORE_PUBLIC_URL).
	// Its signed URLs are built on it and the handler serves under its path.
	// Unused by S3, which signs its own URLs.
	PublicURL string
	// SigningKeys sign the local backend's URLs (OBJECTSTORE_SIGNING_KEY, see
	// ParseSigningKeys). Without one, outside production, a random key is
	// made at start: URLs then die with the process.
	SigningKeys []SigningKey
	// MaxObjectBytes bounds every object (OBJECTSTORE_MAX_OBJECT_BYTES,
	// default 1 GiB); callers set lower limits per use.
	MaxObjectBytes int64
	// UploadURLExpiry and DownloadURLExpiry are the default lifetimes of
	// signed URLs (default 15 minutes each; at most 7 days).
	UploadURLExpiry   time.Duration
	DownloadURLExpiry time.Duration
	// S3 credentials, from the standard names AWS_ACCESS_KEY_ID,
	// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (optional).
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	// Production makes missing settings that development can do without
	// fatal: the signing key and the public URL of the local backend
	// (PLATFORM_ENV=production).
	Production bool
	// Clock is the time the local backend signs and checks expiries with
	// (nil: time.Now). Tests move it; S3 always signs with the real clock.
	Clock func() time.Time
}

// Default sizes and lifetimes.
const (
	DefaultMaxObjectBytes = 1 << 30
	DefaultURLExpiry      = 15 * time.Minute
)

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.DataDir == "" {
		c.DataDir = "data"
	}
	if !filepath.IsAbs(c.DataDir) {
		// Resolved now, not at each use: a later chdir must not move the store.
		if abs, err := filepath.Abs(c.DataDir); err == nil {
			c.DataDir = abs
		}
	}
	if c.URL == "" {
		c.URL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(c.DataDir, "objects"))}).String()
	}
	if c.MaxObjectBytes == 0 {
		c.MaxObjectBytes = DefaultMaxObjectBytes
	}
	if c.UploadURLExpiry == 0 {
		c.UploadURLExpiry = DefaultURLExpiry
	}
	if c.DownloadURLExpiry == 0 {
		c.DownloadURLExpiry = DefaultURLExpiry
	}
	return c
}

// Validate names every problem at once, so a deployment fails at start, not
// at the first upload.
func (c Config) Validate() error {
	var errs []error
	loc, err := parseLocation(c.URL)
	if err != nil {
		errs = append(errs, err)
	}
	if c.MaxObjectBytes <= 0 {
		errs = append(errs, errors.New("objectstore: OBJECTSTORE_MAX_OBJECT_BYTES must be positive"))
	}
	if bad := func(d time.Duration) bool { return d <= 0 || d > MaxURLExpiry }; bad(c.UploadURLExpiry) || bad(c.DownloadURLExpiry) {
		errs = append(errs, errors.New("objectstore: signed URL expiries must be positive and at most 7 days"))
	}
	if err := validateSigningKeys(c.SigningKeys); err != nil {
		errs = append(errs, err)
	}
	if c.PublicURL != "" {
		if _, err := parsePublicURL(c.PublicURL); err != nil {
			errs = append(errs, err)
		}
	}
	switch loc.scheme {
	case "file":
		if c.Production && len(c.SigningKeys) == 0 {
			errs = append(errs, errors.New("objectstore: OBJECTSTORE_SIGNING_KEY is required in production (the local backend signs its URLs)"))
		}
		if c.Production && c.PublicURL == "" {
			errs = append(errs, errors.New("objectstore: OBJECTSTORE_PUBLIC_URL is required in production (the local backend's signed URLs point at it)"))
		}
	case "s3":
		if c.AccessKeyID == "" || c.SecretAccessKey == "" {
			errs = append(errs, errors.New("objectstore: an s3 store needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"))
		}
	}
	return errors.Join(errs...)
}

// FromEnv reads the environment over the defaults. Call Validate (or Open,
// which does) on the result.
func FromEnv() (Config, error) {
	c := Config{
		URL:             os.Getenv("OBJECTSTORE_URL"),
		DataDir:         os.Getenv("PLATFORM_DATA_DIR"),
		PublicURL:       os.Getenv("OBJECTSTORE_PUBLIC_URL"),
		AccessKeyID:     os.Getenv("AWS_ACCESS_KEY_ID"),
		SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken:    os.Getenv("AWS_SESSION_TOKEN"),
		Production:      strings.EqualFold(os.Getenv("PLATFORM_ENV"), "production"),
	}
	var errs []error
	if v := os.Getenv("OBJECTSTORE_SIGNING_KEY"); v != "" {
		keys, err := ParseSigningKeys(v)
		if err != nil {
			errs = append(errs, err)
		}
		c.SigningKeys = keys
	}
	if v := os.Getenv("OBJECTSTORE_MAX_OBJECT_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("objectstore: OBJECTSTORE_MAX_OBJECT_BYTES=%q is not a positive number of bytes", v))
		}
		c.MaxObjectBytes = n
	}
	return c.WithDefaults(), errors.Join(errs...)
}

// location is a parsed OBJECTSTORE_URL.
type location struct {
	scheme   string // file or s3
	dir      string // file
	bucket   string // s3
	endpoint string
	region   string
	secure   bool
}

// S3's bucket naming rules (the DNS-compatible ones every provider accepts).
var bucketPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

func parseLocation(raw string) (location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return location{}, fmt.Errorf("objectstore: OBJECTSTORE_URL is not a URL: %w", err)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return location{}, fmt.Errorf("objectstore: OBJECTSTORE_URL %q: a file URL names no host (file:///abs/path)", raw)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return location{}, fmt.Errorf("objectstore: OBJECTSTORE_URL %q: a file URL takes no query", raw)
		}
		dir := filepath.FromSlash(u.Path)
		if !filepath.IsAbs(dir) || filepath.Clean(dir) == string(filepath.Separator) {
			return location{}, fmt.Errorf("objectstore: OBJECTSTORE_URL %q: the directory must be absolute and not the root", raw)
		}
		return location{scheme: "file", dir: filepath.Clean(dir)}, nil
	case "s3":
		loc := location{scheme: "s3", bucket: u.Host, endpoint: "s3.amazonaws.com", region: "us-east-1", secure: true}
		var errs []error
		if u.Host == "" {
			errs = append(errs, fmt.Errorf("objectstore: OBJECTSTORE_URL %q names no bucket (s3://bucket?...)", raw))
		} else if !bucketPattern.MatchString(u.Host) || strings.Contains(u.Host, "..") {
			errs = append(errs, fmt.Errorf("objectstore: OBJECTSTORE_URL: %q is not a valid bucket name", u.Host))
		}
		if strings.Trim(u.Path, "/") != "" {
			errs = append(errs, fmt.Errorf("objectstore: OBJECTSTORE_URL %q: keys are the callers'; the URL names only the bucket", raw))
		}
		for name, vals := range u.Query() {
			v := vals[len(vals)-1]
			switch name {
			case "endpoint":
				if v == "" || strings.Contains(v, "/") {
					errs = append(errs, fmt.Errorf("objectstore: OBJECTSTORE_URL: endpoint must be host[:port], got %q", v))
				}
				loc.endpoint = v
			case "region":
				loc.region = v
			case "secure":
				b, err := strconv.ParseBool(v)
				if err != nil {
					errs = append(errs, fmt.Errorf("objectstore: OBJECTSTORE_URL: secure must be true or false, got %q", v))
				}
				loc.secure = b
			default:
				errs = append(errs, fmt.Errorf("objectstore: OBJECTSTORE_URL: unknown parameter %q (endpoint, region, secure)", name))
			}
		}
		return loc, errors.Join(errs...)
	case "":
		return location{}, errors.New("objectstore: OBJECTSTORE_URL has no scheme (file:// or s3://)")
	default:
		return location{}, fmt.Errorf("objectstore: OBJECTSTORE_URL: unknown scheme %q (file:// or s3://)", u.Scheme)
	}
}

// parsePublicURL checks the base of the local handler's URLs.
func parsePublicURL(raw string) (*url.URL, error) {
	u, problem := text.ParseURL(raw, text.URLRules{NoQuery: true, NoFragment: true})
	if problem != "" {
		return nil, errors.New("objectstore: OBJECTSTORE_PUBLIC_URL " + problem)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}
