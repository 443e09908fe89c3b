package objectstore

import (
	"context"
	"log/slog"
	"net/http"
)

// Open validates the configuration (after WithDefaults) and opens the store
// it names. The context bounds nothing yet (opening makes no request) but
// keeps the signature stable for backends that will.
func Open(_ context.Context, c Config) (Store, error) {
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	loc, _ := parseLocation(c.URL) // valid: Validate parsed it
	// Each branch returns a nil interface on error, never a typed nil.
	if loc.scheme == "s3" {
		s, err := openS3(loc, c)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	l, err := openLocal(loc.dir, c)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Handler is the HTTP handler that serves s's signed URLs, with the path to
// mount it at, or nil for stores whose URLs point elsewhere (S3 serves its
// own).
func Handler(s Store, log *slog.Logger) (path string, h http.Handler) {
	if l, ok := s.(*Local); ok && l.public != nil {
		return l.HandlerPath() + "/", l.Handler(log)
	}
	return "", nil
}
