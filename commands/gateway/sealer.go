package gateway

import (
	"github.com/platform/backend/commands/gateway/vault"
	"github.com/platform/backend/domain/errs"
)

// Sealer lends the gateway's credential key ring (GATEWAY_KEYRING) to
// other contexts, so the platform has one sealing mechanism, one place to
// configure keys and one rotation: publishing seals its network tokens
// with it. The module provides it. A purpose is bound into the additional
// data, so a value sealed for one use never opens as another's (a
// publishing token is not a gateway credential, and the reverse).
type Sealer struct {
	ring    vault.Ring
	purpose string
}

// NewSealer is a sealer for one purpose ("publishing.secrets") over the ring.
func NewSealer(ring vault.Ring, purpose string) *Sealer { return &Sealer{ring: ring, purpose: purpose} }

// For is the same ring for another purpose.
func (s *Sealer) For(purpose string) *Sealer { return &Sealer{ring: s.ring, purpose: purpose} }

// Active is the id of the key values are sealed with ("": no ring).
func (s *Sealer) Active() string { return s.ring.Active() }

// Seal encrypts under the active key; ad binds the value to its row.
func (s *Sealer) Seal(plain, ad []byte) (vault.Sealed, error) {
	if s.ring.Active() == "" {
		return vault.Sealed{}, errs.Unavailable("no credential key ring is configured (GATEWAY_KEYRING)", nil)
	}
	return s.ring.Seal(plain, s.bind(ad))
}

// Open decrypts with the key the value names (vault.ErrNoKey when the ring
// lost it, vault.ErrOpen when it does not open: neither shows a secret).
func (s *Sealer) Open(v vault.Sealed, ad []byte) ([]byte, error) {
	return s.ring.Open(v, s.bind(ad))
}

func (s *Sealer) bind(ad []byte) []byte {
	out := make([]byte, 0, len(s.purpose)+1+len(ad))
	return append(append(append(out, s.purpose...), 0), ad...)
}
