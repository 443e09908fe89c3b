package publishing

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LegacyKey opens what publishing sealed with its own AES-256-GCM key
// before the key ring sealed its secrets (a random nonce before the
// ciphertext). It never seals: every save seals with the ring, and the
// re-seal sweep moves the rest, so the key can go once no row needs it.
//
// Removable: once every deployment answers 0 to
//
//	SELECT (SELECT count(*) FROM publishing_credentials WHERE key_id IS NULL)
//	     + (SELECT count(*) FROM publishing_oauth_flows WHERE key_id IS NULL)
//
// delete this file, the legacy branch of Vault.open, PUBLISHING_TOKEN_KEY
// (Config.LegacyTokenKey) and the publishing_secrets table.
type LegacyKey struct{ aead cipher.AEAD }

// NewLegacyKey reads a 32-byte key (PUBLISHING_TOKEN_KEY, or the
// development key kept in publishing_secrets).
func NewLegacyKey(key []byte) (*LegacyKey, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("publishing: a legacy token key has 32 bytes, not %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &LegacyKey{aead: aead}, nil
}

// Open decrypts a legacy value.
func (k *LegacyKey) Open(sealed, ad []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("publishing: legacy sealed value too short")
	}
	return k.aead.Open(nil, sealed[:n], sealed[n:], ad)
}

// LegacyDevelopmentKey is the key a deployment without PUBLISHING_TOKEN_KEY
// made and kept in publishing_secrets before the key ring (nil when it
// never made one: then no legacy value exists either).
func LegacyDevelopmentKey(ctx context.Context, pool *pgxpool.Pool) ([]byte, error) {
	var key []byte
	err := pool.QueryRow(ctx, `SELECT value FROM publishing_secrets WHERE name='token_key'`).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return key, err
}
