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

// Credentials keeps connections' tokens sealed in publishing_credentials.
type Credentials struct {
	pool   *pgxpool.Pool
	sealer Sealer
}

func NewCredentials(pool *pgxpool.Pool, sealer Sealer) *Credentials {
	return &Credentials{pool: pool, sealer: sealer}
}

// Save seals and stores a connection's tokens (and its account's own token).
func (c *Credentials) Save(ctx context.Context, organizationID, brandID, connectionID, network string, conn social.Connection) error {
	plain, err := json.Marshal(conn)
	if err != nil {
		return err
	}
	sealed, err := c.sealer.Seal(plain, []byte(connectionID))
	if err != nil {
		return err
	}
	var expires *time.Time
	if !conn.Token.Expiry.IsZero() {
		e := conn.Token.Expiry.UTC()
		expires = &e
	}
	_, err = c.pool.Exec(ctx, `INSERT INTO publishing_credentials (connection_id, organization_id, brand_id, network, sealed, expires_at)
		VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT (connection_id) DO UPDATE SET sealed=EXCLUDED.sealed, expires_at=EXCLUDED.expires_at,
		updated_at=now()`, connectionID, organizationID, brandID, network, sealed, expires)
	return dbError(err)
}

// Load opens a connection's tokens.
func (c *Credentials) Load(ctx context.Context, connectionID string) (social.Connection, error) {
	var sealed []byte
	err := c.pool.QueryRow(ctx, `SELECT sealed FROM publishing_credentials WHERE connection_id=$1`, connectionID).Scan(&sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return social.Connection{}, errs.NotFound("connection credentials")
	}
	if err != nil {
		return social.Connection{}, dbError(err)
	}
	plain, err := c.sealer.Open(sealed, []byte(connectionID))
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
