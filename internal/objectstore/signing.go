package objectstore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SigningKey signs the local backend's URLs. Several keys allow rotation:
// the first signs, all verify, so a new key goes first and the old one stays
// until the URLs it signed have expired.
type SigningKey struct {
	ID     string // names the key in the URL (key_id), never secret
	Secret []byte // at least 32 bytes
}

// String never shows the secret (a Config may end up in a log line).
func (k SigningKey) String() string { return k.ID + ":[redacted]" }

// GoString keeps %#v from printing the secret too.
func (k SigningKey) GoString() string { return k.String() }

const minSecretBytes = 32

var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// ParseSigningKeys reads OBJECTSTORE_SIGNING_KEY: a comma-separated list of
// id:secret (e.g. "2026a:<48 random bytes in base64>,2025b:<...>"), first one
// signing. A lone secret without an id is the key "default". The secret is
// used as written, so any high-entropy string of 32 bytes or more will do.
func ParseSigningKeys(s string) ([]SigningKey, error) {
	var keys []SigningKey
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, secret, ok := strings.Cut(part, ":")
		if !ok {
			id, secret = "default", part
		}
		keys = append(keys, SigningKey{ID: id, Secret: []byte(secret)})
	}
	return keys, validateSigningKeys(keys)
}

func validateSigningKeys(keys []SigningKey) error {
	var errs []error
	seen := map[string]bool{}
	for i, k := range keys {
		if !keyIDPattern.MatchString(k.ID) {
			errs = append(errs, fmt.Errorf("objectstore: signing key #%d: the id must be 1..32 of A-Z a-z 0-9 _ -", i+1))
		}
		if seen[k.ID] {
			errs = append(errs, fmt.Errorf("objectstore: signing key id %q appears twice", k.ID))
		}
		seen[k.ID] = true
		if len(k.Secret) < minSecretBytes {
			errs = append(errs, fmt.Errorf("objectstore: signing key %q: the secret must be at least %d bytes", k.ID, minSecretBytes))
		}
	}
	return errors.Join(errs...)
}

// ephemeralSigningKey is the development fallback when no key is configured:
// URLs work until the process restarts. Validate refuses it in production.
func ephemeralSigningKey() (SigningKey, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return SigningKey{}, err
	}
	return SigningKey{ID: "ephemeral", Secret: secret}, nil
}

// grant is what a signed URL allows. Every field is part of the signature:
// changing any of them (a later expiry, a larger size, another type, another
// key, PUT for GET) invalidates the URL.
type grant struct {
	Method      string // PUT (upload) or GET (download; HEAD uses it too)
	Key         string
	Expires     int64  // Unix seconds
	MaxBytes    int64  // uploads; 0 for downloads
	ContentType string // uploads: the one type allowed
	Disposition string // downloads: Content-Disposition to answer with, "" for inline
}

// canonical is the signed string. Its fields are separated by newlines,
// which none of them can contain (keys refuse control characters, types and
// dispositions are formatted by mime), so no two grants share one.
func (g grant) canonical() string {
	return strings.Join([]string{"objectstore-v1", g.Method, g.Key,
		strconv.FormatInt(g.Expires, 10), strconv.FormatInt(g.MaxBytes, 10), g.ContentType, g.Disposition}, "\n")
}

// signer signs grants with the first key and verifies with any.
type signer struct{ keys []SigningKey }

func (s signer) sign(g grant) (keyID, signature string) {
	k := s.keys[0]
	return k.ID, base64.RawURLEncoding.EncodeToString(mac(k.Secret, g.canonical()))
}

// verify checks the signature in constant time. An unknown key id, a
// malformed signature and a wrong one are all just false: the caller
// answers 403 either way and learns nothing about which.
func (s signer) verify(keyID, signature string, g grant) bool {
	got, err := base64.RawURLEncoding.DecodeString(signature)
	if err != nil {
		return false
	}
	for _, k := range s.keys {
		if k.ID == keyID {
			return hmac.Equal(got, mac(k.Secret, g.canonical()))
		}
	}
	return false
}

func mac(secret []byte, msg string) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(msg))
	return h.Sum(nil)
}
