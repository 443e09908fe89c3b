// Package keyring is the platform's one key ring for secrets at rest
// (provider credentials of the gateway, network tokens of publishing, the
// studio's provider tokens next): AES-256-GCM under named 32-byte keys, one
// of them active. Sealing uses the active key; opening uses the key the
// sealed value names, so a ring that keeps an old key reads what it sealed
// until a rotation re-seals it under the active one. The ring never leaves
// the process: it is read from the configuration (PLATFORM_KEYRING,
// config.go) and lent to every module as module.Platform.KeyRing, and no
// error or String of this package shows key material.
//
// It was the gateway's (commands/gateway/vault, GATEWAY_KEYRING) until a
// second and a third context needed it: the format of sealed values, the
// key ids and the sandbox key are unchanged, so what was sealed before opens.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// KeySize is AES-256's key length.
const KeySize = 32

// keyIDPattern: key ids are short, printable and safe in logs and events.
var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Ring is a set of named keys, one active. The zero Ring seals nothing.
type Ring struct {
	keys   map[string]cipher.AEAD
	active string
}

// Sealed is a value sealed under one key of a ring: what the credential
// table stores.
type Sealed struct {
	KeyID      string
	Nonce      []byte
	Ciphertext []byte
}

// ErrNoKey: the ring has no key of that id (a key removed from the ring
// before the credentials it sealed were rotated).
var ErrNoKey = errors.New("keyring: the key ring has no key of this id")

// ErrOpen: the value does not open under its key (another key of the same
// id, tampered bytes, or another credential's additional data).
var ErrOpen = errors.New("keyring: the sealed value does not open")

// ErrEmpty: the ring has no active key.
var ErrEmpty = errors.New("keyring: the key ring has no active key")

// Parse reads a ring: "<kid>:<base64 of 32 bytes>" entries separated by
// commas, and the id of the active key ("" when the ring holds exactly
// one key, which is then active). Every problem is named, none shows a key.
func Parse(ring, active string) (Ring, error) {
	r := Ring{keys: map[string]cipher.AEAD{}}
	var problems []error
	for i, entry := range strings.Split(ring, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		id, encoded, ok := strings.Cut(entry, ":")
		if !ok || !keyIDPattern.MatchString(id) {
			problems = append(problems, fmt.Errorf("keyring: entry %d of the key ring is not <key id>:<base64 key> with a key id of 1..64 letters, digits, '.', '_' or '-'", i+1))
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
		if err != nil || len(raw) != KeySize {
			problems = append(problems, fmt.Errorf("keyring: key %q of the key ring is not the standard base64 of %d bytes", id, KeySize))
			continue
		}
		if _, dup := r.keys[id]; dup {
			problems = append(problems, fmt.Errorf("keyring: key %q appears twice in the key ring", id))
			continue
		}
		aead, err := newAEAD(raw)
		if err != nil {
			problems = append(problems, fmt.Errorf("keyring: key %q: %w", id, err))
			continue
		}
		r.keys[id] = aead
	}
	switch {
	case active == "" && len(r.keys) == 1:
		for id := range r.keys {
			r.active = id
		}
	case active == "" && len(r.keys) > 1:
		problems = append(problems, errors.New("keyring: a key ring of several keys needs the active key's id"))
	case active != "":
		if _, ok := r.keys[active]; !ok {
			problems = append(problems, fmt.Errorf("keyring: the active key %q is not in the key ring", active))
		}
		r.active = active
	}
	if len(problems) > 0 {
		return Ring{}, errors.Join(problems...)
	}
	return r, nil
}

// FromKeys builds a ring from raw keys (tests, the sandbox's fixed key).
func FromKeys(active string, keys map[string][]byte) (Ring, error) {
	var entries []string
	for id, k := range keys {
		entries = append(entries, id+":"+base64.StdEncoding.EncodeToString(k))
	}
	slices.Sort(entries)
	return Parse(strings.Join(entries, ","), active)
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Active is the id of the key new values are sealed with ("" for none).
func (r Ring) Active() string { return r.active }

// Has reports whether the ring holds a key of that id.
func (r Ring) Has(keyID string) bool { _, ok := r.keys[keyID]; return ok }

// KeyIDs are the ring's key ids, sorted.
func (r Ring) KeyIDs() []string {
	out := make([]string, 0, len(r.keys))
	for id := range r.keys {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Seal encrypts plaintext under the active key. The additional data binds
// the value to its row (credential and organization): a ciphertext copied
// to another row does not open there.
func (r Ring) Seal(plaintext, additional []byte) (Sealed, error) {
	aead, ok := r.keys[r.active]
	if !ok {
		return Sealed{}, ErrEmpty
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return Sealed{}, fmt.Errorf("keyring: nonce: %w", err)
	}
	return Sealed{KeyID: r.active, Nonce: nonce, Ciphertext: aead.Seal(nil, nonce, plaintext, additional)}, nil
}

// Open decrypts a sealed value with the key it names.
func (r Ring) Open(s Sealed, additional []byte) ([]byte, error) {
	aead, ok := r.keys[s.KeyID]
	if !ok {
		return nil, ErrNoKey
	}
	if len(s.Nonce) != aead.NonceSize() {
		return nil, ErrOpen
	}
	out, err := aead.Open(nil, s.Nonce, s.Ciphertext, additional)
	if err != nil {
		return nil, ErrOpen
	}
	return out, nil
}

// String shows the key ids and the active one, never a key.
func (r Ring) String() string {
	return fmt.Sprintf("key ring %v (active %q)", r.KeyIDs(), r.active)
}
