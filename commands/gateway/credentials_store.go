package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/keyring"
)

// Secrets are a credential's members in clear: only ever in memory, sealed
// before they reach the database, never logged, answered or evented.
type Secrets map[string]string

// String keeps secrets out of any log line or error that formats them.
func (Secrets) String() string { return "[secrets]" }

// GoString does the same for %#v.
func (Secrets) GoString() string { return "[secrets]" }

// LogValue does the same for slog.
func (Secrets) LogValue() slog.Value { return slog.StringValue("[secrets]") }

// Members are the names of the members given.
func (s Secrets) Members() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	return out
}

// additional binds a sealed credential to its row: a ciphertext copied to
// another credential or organization does not open there.
func additional(org, credentialID string) []byte {
	return []byte("gateway-credential:v1\x00" + org + "\x00" + credentialID)
}

// seal encrypts secrets under the active key.
func (e *Edge) seal(org, credentialID string, s Secrets) (keyring.Sealed, error) {
	plain, err := json.Marshal(map[string]string(s))
	if err != nil {
		return keyring.Sealed{}, err
	}
	sealed, err := e.ring.Seal(plain, additional(org, credentialID))
	if errors.Is(err, keyring.ErrEmpty) {
		return sealed, errs.Unavailable("no credential key is configured", err)
	}
	return sealed, err
}

// credentialRow is a credential as the table holds it.
type credentialRow struct {
	CredentialID string
	ConnectionID string
	Org          string
	Version      int64
	Sealed       keyring.Sealed
}

// open decrypts a credential row with the ring.
func (e *Edge) open(row credentialRow) (Secrets, error) {
	plain, err := e.ring.Open(row.Sealed, additional(row.Org, row.CredentialID))
	if err != nil {
		return nil, err
	}
	var s Secrets
	if err := json.Unmarshal(plain, &s); err != nil {
		return nil, keyring.ErrOpen
	}
	return s, nil
}

// readCredential reads a connection's credential row.
func (e *Edge) readCredential(ctx context.Context, connectionID string) (credentialRow, bool, error) {
	var r credentialRow
	err := e.h.pool.QueryRow(ctx, `SELECT credential_id, connection_id, organization_id, version, key_id, nonce, ciphertext
		FROM gateway_credentials WHERE connection_id = $1`, connectionID).
		Scan(&r.CredentialID, &r.ConnectionID, &r.Org, &r.Version, &r.Sealed.KeyID, &r.Sealed.Nonce, &r.Sealed.Ciphertext)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, dbError(err)
}

// writeCredential is the statement that stores a sealed version, in the
// command that records it.
func writeCredential(org, connectionID, credentialID string, version int64, s keyring.Sealed, now time.Time) eventstore.Write {
	return eventstore.Write{SQL: `INSERT INTO gateway_credentials (credential_id, connection_id, organization_id, key_id, nonce, ciphertext,
		version, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (credential_id) DO UPDATE SET key_id = EXCLUDED.key_id, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext,
		version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`,
		Args: []any{credentialID, connectionID, org, s.KeyID, s.Nonce, s.Ciphertext, version, now}}
}
