package publishing

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/internal/keyring"
)

func testRing(t *testing.T, active string, ids ...string) *keyring.Sealer {
	keys := map[string][]byte{}
	for i, id := range ids {
		keys[id] = bytes.Repeat([]byte{byte(i + 1)}, 32)
	}
	r, err := keyring.FromKeys(active, keys)
	if err != nil {
		t.Fatal(err)
	}
	return keyring.NewSealer(r, "publishing")
}

// TestVault: values are sealed under the ring's active key and opened by
// the key they name; the legacy form (publishing's own key) still opens;
// what no key opens is ErrUnreadable; without a ring sealing is 503.
func TestVault(t *testing.T) {
	key := bytes.Repeat([]byte{9}, 32)
	legacy, err := NewLegacyKey(key)
	if err != nil {
		t.Fatal(err)
	}
	v := NewVault(testRing(t, "k1", "k1"), legacy)
	s, err := v.seal([]byte("secret"), []byte("row"))
	if err != nil || *s.KeyID != "k1" || !v.current(s) || bytes.Contains(s.Sealed, []byte("secret")) {
		t.Fatalf("%+v %v", s, err)
	}
	rotated := NewVault(testRing(t, "k2", "k1", "k2"), nil)
	if plain, err := rotated.open(s, []byte("row")); err != nil || string(plain) != "secret" || rotated.current(s) {
		t.Fatalf("the rotated ring: %q %v", plain, err)
	}
	if _, err := NewVault(testRing(t, "k2", "k2"), nil).open(s, []byte("row")); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("a ring without k1: %v", err)
	}
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	nonce := make([]byte, aead.NonceSize())
	old := stored{Sealed: aead.Seal(nonce, nonce, []byte("old secret"), []byte("row"))}
	if plain, err := v.open(old, []byte("row")); err != nil || string(plain) != "old secret" || v.current(old) {
		t.Fatalf("legacy: %q %v", plain, err)
	}
	if _, err := rotated.open(old, []byte("row")); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("legacy without the legacy key: %v", err)
	}
	var e *errs.Error
	if _, err := NewVault(nil, legacy).seal([]byte("x"), nil); !errors.As(err, &e) || e.Kind != errs.KindUnavailable {
		t.Fatalf("sealed without a ring: %v", err)
	}
}
