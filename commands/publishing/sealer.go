package publishing

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Sealer encrypts secrets at rest: the connection tokens and the PKCE
// verifiers of connect attempts. ad (the row's id) binds a sealed value to
// its row. The gateway's key ring implements it once it lands; until then
// AESSealer does, with one key.
type Sealer interface {
	Seal(plain, ad []byte) ([]byte, error)
	Open(sealed, ad []byte) ([]byte, error)
}

// AESSealer is AES-256-GCM under one 32-byte key: a random nonce before the
// ciphertext.
type AESSealer struct{ aead cipher.AEAD }

var _ Sealer = (*AESSealer)(nil)

// NewAESSealer makes a sealer from a 32-byte key.
func NewAESSealer(key []byte) (*AESSealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("publishing: a token key has 32 bytes, not %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &AESSealer{aead: aead}, nil
}

func (s *AESSealer) Seal(plain, ad []byte) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, plain, ad), nil
}

func (s *AESSealer) Open(sealed, ad []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("publishing: sealed value too short")
	}
	return s.aead.Open(nil, sealed[:n], sealed[n:], ad)
}

// DevelopmentKey is the key of a deployment that configured none: made once
// and kept in publishing_secrets, so tokens survive restarts. Production
// configures PUBLISHING_TOKEN_KEY (config refuses to start without it).
func DevelopmentKey(ctx context.Context, pool *pgxpool.Pool) ([]byte, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	var out []byte
	err := pool.QueryRow(ctx, `WITH ins AS (INSERT INTO publishing_secrets (name, value) VALUES ('token_key', $1)
		ON CONFLICT DO NOTHING RETURNING value) SELECT value FROM ins UNION ALL SELECT value FROM publishing_secrets WHERE name='token_key'`,
		key).Scan(&out)
	return out, err
}
