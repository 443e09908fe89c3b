package keyring

import (
	"github.com/platform/backend/domain/errs"
)

// Sealer is the ring for one purpose: what a context seals its secrets
// with (module.Platform.Sealer("publishing")). The purpose is bound into the
// additional data, so a value sealed for one use never opens as another's
// (a publishing token is not a gateway credential, and the reverse), while
// every context shares one configuration, one set of key ids and one
// rotation.
type Sealer struct {
	ring    Ring
	purpose string
}

// NewSealer is a sealer for one purpose ("publishing") over the ring.
func NewSealer(ring Ring, purpose string) *Sealer { return &Sealer{ring: ring, purpose: purpose} }

// For is the same ring for another purpose.
func (s *Sealer) For(purpose string) *Sealer { return &Sealer{ring: s.ring, purpose: purpose} }

// Active is the id of the key values are sealed with ("": no ring).
func (s *Sealer) Active() string { return s.ring.Active() }

// ErrNoRing answers a seal without a ring: 503, nothing is stored (a
// deployment that configured no key ring cannot keep secrets).
var ErrNoRing = errs.Unavailable("no key ring is configured to seal secrets with (PLATFORM_KEYRING)", nil)

// Seal encrypts under the active key; ad binds the value to its row.
func (s *Sealer) Seal(plain, ad []byte) (Sealed, error) {
	if s.ring.Active() == "" {
		return Sealed{}, ErrNoRing
	}
	return s.ring.Seal(plain, s.bind(ad))
}

// Open decrypts with the key the value names (ErrNoKey when the ring lost
// it, ErrOpen when it does not open: neither shows a secret).
func (s *Sealer) Open(v Sealed, ad []byte) ([]byte, error) {
	return s.ring.Open(v, s.bind(ad))
}

// bind is the purpose, a NUL and the row's additional data: the form
// publishing's tokens were sealed with when the gateway lent its ring.
func (s *Sealer) bind(ad []byte) []byte {
	out := make([]byte, 0, len(s.purpose)+1+len(ad))
	return append(append(append(out, s.purpose...), 0), ad...)
}
