package keyring_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/internal/keyring"
)

// TestSealerBindsItsPurpose: a value sealed for one purpose does not open
// for another (a publishing token is not a gateway credential), nor under
// another row's additional data; without a ring nothing is sealed (503).
func TestSealerBindsItsPurpose(t *testing.T) {
	ring, err := keyring.FromKeys("k1", map[string][]byte{"k1": bytes.Repeat([]byte{1}, keyring.KeySize)})
	if err != nil {
		t.Fatal(err)
	}
	pub := keyring.NewSealer(ring, "gateway").For("publishing")
	v, err := pub.Seal([]byte("token"), []byte("conn-1"))
	if err != nil || v.KeyID != "k1" || pub.Active() != "k1" {
		t.Fatalf("%+v %v", v, err)
	}
	if plain, err := pub.Open(v, []byte("conn-1")); err != nil || string(plain) != "token" {
		t.Fatalf("%q %v", plain, err)
	}
	if _, err := keyring.NewSealer(ring, "gateway").Open(v, []byte("conn-1")); !errors.Is(err, keyring.ErrOpen) {
		t.Fatalf("opened for another purpose: %v", err)
	}
	if _, err := ring.Open(v, []byte("conn-1")); !errors.Is(err, keyring.ErrOpen) {
		t.Fatalf("opened without the purpose: %v", err)
	}
	if _, err := pub.Open(v, []byte("conn-2")); !errors.Is(err, keyring.ErrOpen) {
		t.Fatalf("opened under another row: %v", err)
	}
	// The binding is the one publishing's tokens were sealed with when the
	// gateway lent its ring: purpose, NUL, the row's data. Sealed rows of
	// that time must keep opening.
	before := mustSeal(t, ring, []byte("publishing\x00conn-1"))
	if plain, err := pub.Open(before, []byte("conn-1")); err != nil || string(plain) != "token" {
		t.Fatalf("a token sealed before the move: %q %v", plain, err)
	}
	var e *errs.Error
	if _, err := keyring.NewSealer(keyring.Ring{}, "publishing").Seal([]byte("token"), nil); !errors.As(err, &e) || e.Kind != errs.KindUnavailable {
		t.Fatalf("sealed without a ring: %v", err)
	}
}

func mustSeal(t *testing.T, r keyring.Ring, ad []byte) keyring.Sealed {
	t.Helper()
	v, err := r.Seal([]byte("token"), ad)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
