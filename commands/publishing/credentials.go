package publishing

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/providers/social"
)

// Credentials keeps connections' tokens sealed in publishing_credentials,
// under the gateway's key ring.
type Credentials struct {
	pool  *pgxpool.Pool
	vault *Vault
}

func NewCredentials(pool *pgxpool.Pool, vault *Vault) *Credentials {
	return &Credentials{pool: pool, vault: vault}
}

// Save seals a connection's tokens (and its account's own token) with the
// ring's active key and stores them: a legacy row is re-sealed here too.
func (c *Credentials) Save(ctx context.Context, organizationID, brandID, connectionID, network string, conn social.Connection) error {
	plain, err := json.Marshal(conn)
	if err != nil {
		return err
	}
	sealed, err := c.vault.seal(plain, []byte(connectionID))
	if err != nil {
		return err
	}
	var expires *time.Time
	if !conn.Token.Expiry.IsZero() {
		e := conn.Token.Expiry.UTC()
		expires = &e
	}
	_, err = c.pool.Exec(ctx, `INSERT INTO publishing_credentials (connection_id, organization_id, brand_id, network, key_id, nonce, sealed, expires_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT (connection_id) DO UPDATE SET key_id=EXCLUDED.key_id, nonce=EXCLUDED.nonce,
		sealed=EXCLUDED.sealed, expires_at=EXCLUDED.expires_at, updated_at=now()`,
		connectionID, organizationID, brandID, network, sealed.KeyID, sealed.Nonce, sealed.Sealed, expires)
	return dbError(err)
}

// Load opens a connection's tokens (ErrUnreadable when they do not open).
func (c *Credentials) Load(ctx context.Context, connectionID string) (social.Connection, error) {
	var s stored
	err := c.pool.QueryRow(ctx, `SELECT key_id, nonce, sealed FROM publishing_credentials WHERE connection_id=$1`, connectionID).
		Scan(&s.KeyID, &s.Nonce, &s.Sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return social.Connection{}, errs.NotFound("connection credentials")
	}
	if err != nil {
		return social.Connection{}, dbError(err)
	}
	plain, err := c.vault.open(s, []byte(connectionID))
	if err != nil {
		return social.Connection{}, err
	}
	var conn social.Connection
	return conn, json.Unmarshal(plain, &conn)
}

// Expiring lists connections whose access token expires before t.
func (c *Credentials) Expiring(ctx context.Context, before time.Time, limit int) ([]ExpiringCredential, error) {
	rows, err := c.pool.Query(ctx, `SELECT connection_id, brand_id, network FROM publishing_credentials
		WHERE expires_at IS NOT NULL AND expires_at < $1 ORDER BY expires_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, dbError(err)
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[ExpiringCredential])
}

// ExpiringCredential is a connection to refresh.
type ExpiringCredential struct {
	ConnectionID string
	BrandID      string
	Network      string
}

// dbError turns a database failure into 503 when it is an outage.
func dbError(err error) error {
	if err == nil || !eventstore.IsTransient(err) {
		return err // a refused statement is a bug: a 500, logged
	}
	return errs.Unavailable("publishing: the database is unavailable", err)
}
