package gateway_test

import (
	"bytes"
	"errors"
	"testing"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/commands/gateway/vault"
	"github.com/platform/backend/domain/errs"
)

// TestSealerBindsItsPurpose: a value sealed for one purpose does not open
// for another (a publishing token is not a gateway credential), nor under
// another row's additional data; without a ring nothing is sealed (503).
func TestSealerBindsItsPurpose(t *testing.T) {
	ring, err := vault.FromKeys("k1", map[string][]byte{"k1": bytes.Repeat([]byte{1}, vault.KeySize)})
	if err != nil {
		t.Fatal(err)
	}
	pub := gatewaycmd.NewSealer(ring, "gateway").For("publishing")
	v, err := pub.Seal([]byte("token"), []byte("conn-1"))
	if err != nil || v.KeyID != "k1" || pub.Active() != "k1" {
		t.Fatalf("%+v %v", v, err)
	}
	if plain, err := pub.Open(v, []byte("conn-1")); err != nil || string(plain) != "token" {
		t.Fatalf("%q %v", plain, err)
	}
	if _, err := gatewaycmd.NewSealer(ring, "gateway").Open(v, []byte("conn-1")); !errors.Is(err, vault.ErrOpen) {
		t.Fatalf("opened for another purpose: %v", err)
	}
	if _, err := ring.Open(v, []byte("conn-1")); !errors.Is(err, vault.ErrOpen) {
		t.Fatalf("opened without the purpose: %v", err)
	}
	if _, err := pub.Open(v, []byte("conn-2")); !errors.Is(err, vault.ErrOpen) {
		t.Fatalf("opened under another row: %v", err)
	}
	var e *errs.Error
	if _, err := gatewaycmd.NewSealer(vault.Ring{}, "publishing").Seal([]byte("token"), nil); !errors.As(err, &e) || e.Kind != errs.KindUnavailable {
		t.Fatalf("sealed without a ring: %v", err)
	}
}
