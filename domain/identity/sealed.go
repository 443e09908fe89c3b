package identity

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"strings"
)

// Crypto-shredding: personal data in events is sealed with AES-256-GCM under
// a data key of its subject (a user or an organization). Keys live in a
// PostgreSQL table, never in events; destroying a subject's key makes every
// copy of the data in the immutable log unreadable, so read models rebuilt
// from the log see only a tombstone.

// SealedPrefix marks a sealed value; values without it are clear text
// written before sealing existed.
const SealedPrefix = "enc:v1:"

// ErrKeyDestroyed: the subject's data key is gone (permanently deleted).
var ErrKeyDestroyed = errors.New("the subject's data key was destroyed")

// Seal encrypts plaintext under key, bound to subject (additional data), so a
// value copied to another subject's record does not open. Empty stays empty.
func Seal(key []byte, subject, plaintext string, random io.Reader) (string, error) {
	if plaintext == "" {
		return "", nil
	}
	aead, err := gcm(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := io.ReadFull(random, nonce); err != nil {
		return "", err
	}
	out := aead.Seal(nonce, nonce, []byte(plaintext), []byte(subject))
	return SealedPrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts a sealed value; clear (legacy) values come back as they are.
func Open(key []byte, subject, value string) (string, error) {
	if !IsSealed(value) {
		return value, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(value, SealedPrefix))
	if err != nil {
		return "", err
	}
	aead, err := gcm(key)
	if err != nil {
		return "", err
	}
	if len(raw) < aead.NonceSize() {
		return "", errors.New("sealed value too short")
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(subject))
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

func IsSealed(value string) bool { return strings.HasPrefix(value, SealedPrefix) }

func gcm(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, errors.New("a data key is 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// EmailHash is the keyed HMAC-SHA256 of the normalized email: it finds a user
// at login and claims uniqueness without keeping the address in clear (a
// plain hash of an email is reversible by guessing).
func EmailHash(pepper []byte, email string) string {
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(NormalizeEmail(email)))
	return hex.EncodeToString(m.Sum(nil))
}
