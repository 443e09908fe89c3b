package publishing

import (
	"context"
	"fmt"
	"log/slog"

	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/internal/module"
)

// buildVault seals with the platform's key ring and opens the legacy form
// with PUBLISHING_TOKEN_KEY, else with the development key a deployment kept
// in publishing_secrets before the ring (neither: no legacy value can
// exist). The legacy half is removable: see pubcmd.LegacyKey.
func buildVault(ctx context.Context, p *module.Platform, cfg *Config) (*pubcmd.Vault, error) {
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
	return pubcmd.NewVault(p.Sealer("publishing"), legacy), nil
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
