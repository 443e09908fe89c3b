package identity

import (
	"crypto/rand"
	"encoding/base64"
	"strings"

	"github.com/google/uuid"
)

// Session tokens are opaque: pat_<session id>.<secret> (access) and
// prt_<session id>.<secret> (refresh). The session id locates the session's
// stream; the secret (256 random bits) is compared by SHA-256 hash, like API
// keys. Nothing else is read from a token: /validate rebuilds the principal
// from the event store on every call.
const (
	AccessTokenPrefix  = "pat_"
	RefreshTokenPrefix = "prt_"
)

// newSecret returns a fresh 256-bit secret, URL-safe.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// parseToken splits <prefix><uuid>.<secret>; ok is false for anything else.
func parseToken(token, prefix string) (id, secret string, ok bool) {
	if !strings.HasPrefix(token, prefix) {
		return "", "", false
	}
	id, secret, ok = strings.Cut(strings.TrimPrefix(token, prefix), ".")
	if !ok || uuid.Validate(id) != nil || secret == "" || len(secret) > 128 {
		return "", "", false
	}
	return id, secret, true
}
