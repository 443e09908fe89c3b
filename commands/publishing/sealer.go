package publishing

import (
	"errors"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/internal/keyring"
)

// ErrUnreadable: a stored secret does not open (its key left the ring, or
// a legacy value without the legacy key). The user reconnects, or the
// operator puts the key back; sending again cannot help.
var ErrUnreadable = errors.New("publishing: a stored secret does not open with the key ring")

// errNoRing: nothing can be sealed (no PLATFORM_KEYRING): connecting is
// refused before anything is stored.
var errNoRing = errs.Unavailable("publishing: no key ring to seal tokens with (PLATFORM_KEYRING)", nil)

// stored is a sealed secret as a row keeps it: KeyID nil is the legacy
// form (publishing's own key, the nonce before the ciphertext).
type stored struct {
	KeyID  *string
	Nonce  []byte
	Sealed []byte
}

// Vault seals publishing's secrets (network tokens, PKCE verifiers) with
// the platform's key ring (module.Platform.Sealer("publishing"): the
// binding the gateway's ring had when it lent it, so rows sealed then still
// open), and still opens what publishing sealed with its own key before the
// ring (until the re-seal sweep has moved every row: sealer_legacy.go).
type Vault struct {
	ring   *keyring.Sealer // nil: no ring (sealing answers 503)
	legacy *LegacyKey      // nil: no legacy key configured
}

// NewVault makes the vault over the ring and the legacy key (either nil).
func NewVault(ring *keyring.Sealer, legacy *LegacyKey) *Vault {
	return &Vault{ring: ring, legacy: legacy}
}

func (v *Vault) active() string {
	if v.ring == nil {
		return ""
	}
	return v.ring.Active()
}

func (v *Vault) seal(plain, ad []byte) (stored, error) {
	if v.active() == "" {
		return stored{}, errNoRing
	}
	s, err := v.ring.Seal(plain, ad)
	if err != nil {
		return stored{}, err
	}
	return stored{KeyID: &s.KeyID, Nonce: s.Nonce, Sealed: s.Ciphertext}, nil
}

func (v *Vault) open(s stored, ad []byte) ([]byte, error) {
	var plain []byte
	var err error
	switch {
	case s.KeyID == nil && v.legacy != nil:
		plain, err = v.legacy.Open(s.Sealed, ad)
	case s.KeyID == nil || v.ring == nil:
		return nil, ErrUnreadable
	default:
		plain, err = v.ring.Open(keyring.Sealed{KeyID: *s.KeyID, Nonce: s.Nonce, Ciphertext: s.Sealed}, ad)
	}
	if err != nil {
		return nil, errors.Join(ErrUnreadable, err) // the cause names a key id at most, never a secret
	}
	return plain, nil
}

// current reports whether a stored value is sealed under the active key.
func (v *Vault) current(s stored) bool {
	return s.KeyID != nil && *s.KeyID == v.active()
}
