package gateway

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/internal/keyring"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// indexConnection mirrors a connection (every connection command's answer)
// to gateway_connection_index in the command's transaction, with the
// command's other write-side statements of the new state (a sealed
// credential at its new version, its removal): the metered path and the
// webhook routes read that row, never a stream.
func indexConnection(org string, more ...func(domain.ConnectionV1) eventstore.Write) commands.Option {
	return commands.Also(func(s domain.ConnectionV1) []eventstore.Write {
		settings, _ := json.Marshal(s.Settings) // a map of strings: cannot fail
		writes := []eventstore.Write{{SQL: `INSERT INTO gateway_connection_index (connection_id, organization_id, provider, kind,
			status, app_id, webhook_url, settings, token_expires_at, warned_expiry, credential_version, created_at, chosen_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
			ON CONFLICT (connection_id) DO UPDATE SET status = EXCLUDED.status, app_id = EXCLUDED.app_id,
			webhook_url = EXCLUDED.webhook_url, settings = EXCLUDED.settings, token_expires_at = EXCLUDED.token_expires_at,
			warned_expiry = EXCLUDED.warned_expiry, credential_version = EXCLUDED.credential_version, chosen_at = EXCLUDED.chosen_at`,
			Args: []any{s.ConnectionID, org, s.Provider, s.Kind, s.Status, s.AppID, s.WebhookURL, string(settings), s.TokenExpiresAt,
				s.WarnedExpiry, s.Credential.Version, s.CreatedAt, s.Chosen()}}}
		for _, f := range more {
			writes = append(writes, f(s))
		}
		return writes
	})
}

// connectionState is the answer of the connection commands.
func connectionState(c *domain.Connection) domain.ConnectionV1 { return c.State }

// storeCredential writes a sealed credential at the state's version.
func storeCredential(org, credentialID string, sealed keyring.Sealed, now time.Time) func(domain.ConnectionV1) eventstore.Write {
	return func(s domain.ConnectionV1) eventstore.Write {
		return writeCredential(org, s.ConnectionID, credentialID, s.Credential.Version, sealed, now)
	}
}
