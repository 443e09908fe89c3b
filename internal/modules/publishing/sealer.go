package publishing

import (
	"context"
	"fmt"
	"log/slog"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/commands/gateway/vault"
	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/internal/module"
)

// ringSealer is the gateway's key ring as publishing's Sealer: the one
// sealing mechanism of the platform (GATEWAY_KEYRING, its key ids and
// rotation), bound to publishing's purpose.
type ringSealer struct{ s *gatewaycmd.Sealer }

var _ pubcmd.Sealer = ringSealer{}

func (r ringSealer) Active() string { return r.s.Active() }

func (r ringSealer) Seal(plain, ad []byte) (pubcmd.Sealed, error) {
	v, err := r.s.Seal(plain, ad)
	return pubcmd.Sealed{KeyID: v.KeyID, Nonce: v.Nonce, Ciphertext: v.Ciphertext}, err
}

func (r ringSealer) Open(s pubcmd.Sealed, ad []byte) ([]byte, error) {
	return r.s.Open(vault.Sealed{KeyID: s.KeyID, Nonce: s.Nonce, Ciphertext: s.Ciphertext}, ad)
}

// buildVault seals with the gateway's ring and opens the legacy form with
// PUBLISHING_TOKEN_KEY, else with the development key a deployment kept in
// publishing_secrets before the ring (neither: no legacy value can exist).
func buildVault(ctx context.Context, p *module.Platform, cfg *Config) (*pubcmd.Vault, error) {
	var ring pubcmd.Sealer
	if s, err := module.Lookup[*gatewaycmd.Sealer](p); err == nil {
		ring = ringSealer{s: s.For("publishing")}
	}
	key := cfg.LegacyTokenKey
	if key == nil {
		var err error
		if key, err = pubcmd.LegacyDevelopmentKey(ctx, p.Pool); err != nil {
			return nil, fmt.Errorf("publishing: the legacy token key: %w", err)
		}
	}
	var legacy *pubcmd.LegacyKey
	if key != nil {
		var err error
		if legacy, err = pubcmd.NewLegacyKey(key); err != nil {
			return nil, err
		}
	}
	return pubcmd.NewVault(ring, legacy), nil
}

// sweep re-seals the tokens not under the ring's active key (legacy ones
// included) and reports whether the sweep completed.
func sweep(ctx context.Context, creds *pubcmd.Credentials, log *slog.Logger) bool {
	r, err := creds.Reseal(ctx, log)
	if err != nil {
		log.Warn("publishing: the re-seal sweep stopped; it runs again on the next tick", "resealed", r.Resealed, "err", err)
		return false
	}
	if r.Resealed > 0 || r.Unreadable > 0 {
		log.Info("publishing: tokens re-sealed under the active key", "resealed", r.Resealed, "unreadable", r.Unreadable)
	}
	return true
}
