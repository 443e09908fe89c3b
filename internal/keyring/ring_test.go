package keyring_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/platform/backend/internal/keyring"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, keyring.KeySize) }

func b64(b byte) string { return base64.StdEncoding.EncodeToString(key(b)) }

func TestParseRefusesMalformedRingsWithoutShowingKeys(t *testing.T) {
	short := base64.StdEncoding.EncodeToString([]byte("sixteen-byte-key"))
	for name, c := range map[string]struct{ ring, active string }{
		"no separator":       {"k1" + b64(1), ""},
		"bad key id":         {"k 1:" + b64(1), ""},
		"not base64":         {"k1:!!!not-base64!!!", ""},
		"short key":          {"k1:" + short, ""},
		"duplicate":          {"k1:" + b64(1) + ",k1:" + b64(2), "k1"},
		"several, no active": {"k1:" + b64(1) + ",k2:" + b64(2), ""},
		"unknown active":     {"k1:" + b64(1), "k9"},
		"empty with active":  {"", "k1"},
	} {
		_, err := keyring.Parse(c.ring, c.active)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, secret := range []string{b64(1), b64(2), short} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error shows key material: %v", name, err)
			}
		}
	}
	r, err := keyring.Parse(" k1:"+b64(1)+" , k2:"+b64(2), "k2")
	if err != nil || r.Active() != "k2" || !r.Has("k1") || strings.Contains(r.String(), b64(1)) {
		t.Fatalf("%v %v", r, err)
	}
	one, err := keyring.Parse("only:"+b64(3), "")
	if err != nil || one.Active() != "only" {
		t.Fatalf("a ring of one key makes it active: %v %v", one, err)
	}
	empty, err := keyring.Parse("", "")
	if err != nil || empty.Active() != "" {
		t.Fatalf("an empty ring parses to no key: %v", err)
	}
	if _, err := empty.Seal([]byte("x"), nil); !errors.Is(err, keyring.ErrEmpty) {
		t.Fatalf("an empty ring seals: %v", err)
	}
}

func TestSealOpenRotate(t *testing.T) {
	old, _ := keyring.FromKeys("k1", map[string][]byte{"k1": key(1)})
	sealed, err := old.Seal([]byte("sk_live_secret"), []byte("cred-1"))
	if err != nil || sealed.KeyID != "k1" || bytes.Contains(sealed.Ciphertext, []byte("sk_live_secret")) {
		t.Fatalf("%+v %v", sealed, err)
	}
	again, _ := old.Seal([]byte("sk_live_secret"), []byte("cred-1"))
	if bytes.Equal(again.Nonce, sealed.Nonce) || bytes.Equal(again.Ciphertext, sealed.Ciphertext) {
		t.Fatal("two seals share a nonce")
	}
	if _, err := old.Open(sealed, []byte("cred-2")); !errors.Is(err, keyring.ErrOpen) {
		t.Fatalf("opened under another row's additional data: %v", err)
	}
	// The new ring keeps k1 and seals with k2: old values open, new ones use k2.
	next, _ := keyring.FromKeys("k2", map[string][]byte{"k1": key(1), "k2": key(2)})
	plain, err := next.Open(sealed, []byte("cred-1"))
	if err != nil || string(plain) != "sk_live_secret" {
		t.Fatalf("%q %v", plain, err)
	}
	resealed, _ := next.Seal(plain, []byte("cred-1"))
	if resealed.KeyID != "k2" {
		t.Fatalf("sealed with %s", resealed.KeyID)
	}
	// A ring without k1 cannot open it; a ring whose k1 is another key neither.
	gone, _ := keyring.FromKeys("k2", map[string][]byte{"k2": key(2)})
	if _, err := gone.Open(sealed, []byte("cred-1")); !errors.Is(err, keyring.ErrNoKey) {
		t.Fatalf("%v", err)
	}
	wrong, _ := keyring.FromKeys("k1", map[string][]byte{"k1": key(9)})
	if _, err := wrong.Open(sealed, []byte("cred-1")); !errors.Is(err, keyring.ErrOpen) {
		t.Fatalf("%v", err)
	}
	tampered := sealed
	tampered.Ciphertext = append([]byte(nil), sealed.Ciphertext...)
	tampered.Ciphertext[0] ^= 1
	if _, err := old.Open(tampered, []byte("cred-1")); !errors.Is(err, keyring.ErrOpen) {
		t.Fatalf("%v", err)
	}
}
