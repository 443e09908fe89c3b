package identity

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// ServiceKeys is the identity service's own Ed25519 key set for
// service-to-service tokens. Keys live in PostgreSQL so every platformd
// process signs and verifies with the same set; the first start generates
// one. Private keys never leave the table except to sign. Verification
// reads the key by primary key every time (no per-process cache): a key
// retired by any process stops verifying in every process at once.
type ServiceKeys struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

func NewServiceKeys(pool *pgxpool.Pool, now func() time.Time) *ServiceKeys {
	if now == nil {
		now = time.Now
	}
	return &ServiceKeys{pool: pool, now: now}
}

// Init creates the table and, when no active key exists, one key. Two
// processes starting at once serialize on an advisory lock, so they agree.
func (k *ServiceKeys) Init(ctx context.Context) error {
	return pgx.BeginFunc(ctx, k.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('identity_service_keys', 3))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS identity_service_keys (
			kid text PRIMARY KEY, private_key bytea NOT NULL, public_key bytea NOT NULL,
			created_at timestamptz NOT NULL, retired_at timestamptz)`); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM identity_service_keys WHERE retired_at IS NULL`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO identity_service_keys (kid, private_key, public_key, created_at) VALUES ($1,$2,$3,$4)`,
			uuid.Must(uuid.NewV7()).String(), priv.Seed(), []byte(pub), k.now().UTC())
		return err
	})
}

// Rotate adds a new active key; older keys keep verifying until retired.
func (k *ServiceKeys) Rotate(ctx context.Context) (string, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	kid := uuid.Must(uuid.NewV7()).String()
	_, err = k.pool.Exec(ctx, `INSERT INTO identity_service_keys (kid, private_key, public_key, created_at) VALUES ($1,$2,$3,$4)`,
		kid, priv.Seed(), []byte(pub), k.now().UTC())
	if err != nil {
		return "", unavailable(err)
	}
	return kid, nil
}

// Retire stops a key from verifying (and signing), in every process at once.
func (k *ServiceKeys) Retire(ctx context.Context, kid string) error {
	_, err := k.pool.Exec(ctx, `UPDATE identity_service_keys SET retired_at=$2 WHERE kid=$1 AND retired_at IS NULL`, kid, k.now().UTC())
	if err != nil {
		return unavailable(err)
	}
	return nil
}

// Issue signs a service token for a service identity.
func (k *ServiceKeys) Issue(ctx context.Context, service string, ttl time.Duration) (string, error) {
	if service == "" {
		return "", errs.InvalidField("/service", "must name the service")
	}
	if ttl <= 0 {
		ttl = domain.ServiceTokenTTL
	}
	var kid string
	var seed []byte
	err := k.pool.QueryRow(ctx, `SELECT kid, private_key FROM identity_service_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC LIMIT 1`).
		Scan(&kid, &seed)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errs.Unavailable("no service signing key; Init was not run", err)
	}
	if err != nil {
		return "", unavailable(err)
	}
	now := k.now().UTC()
	return domain.SignServiceToken(kid, ed25519.NewKeyFromSeed(seed), domain.ServiceClaims{
		Issuer: domain.ServiceTokenIssuer, Subject: "service:" + service, Audience: domain.ServiceTokenAudience, Service: service,
		PrincipalType: "service", IssuedAt: now.Unix(), ExpiresAt: now.Add(ttl).Unix(), ID: uuid.Must(uuid.NewV7()).String()})
}

// Verify checks a service token against the key set (by kid) and returns
// the service principal. Retired and unknown kids fail.
func (k *ServiceKeys) Verify(ctx context.Context, token string) (domain.Principal, error) {
	var lookupErr error
	claims, err := domain.VerifyServiceToken(token, func(kid string) (ed25519.PublicKey, bool) {
		pub, ok, err := k.publicKey(ctx, kid)
		lookupErr = err
		return pub, ok
	}, domain.ServiceTokenAudience, k.now())
	if lookupErr != nil {
		return domain.Principal{}, lookupErr
	}
	if err != nil {
		return domain.Principal{}, err
	}
	// The principal's id is the service's name: its type says "service", so the
	// history shows service:<name> (the token's subject, "service:<name>", as
	// the id read service:service:<name>).
	return domain.Principal{ID: claims.Service, Type: "service", Service: claims.Service, Scopes: []string{}}, nil
}

func (k *ServiceKeys) publicKey(ctx context.Context, kid string) (ed25519.PublicKey, bool, error) {
	if uuid.Validate(kid) != nil { // kids are UUIDs; anything else is an unknown key, not a store question
		return nil, false, nil
	}
	// One primary-key lookup per service token: tokens reach only the
	// internal routes (billing plane, developer portal), so this costs
	// little, and a cache would keep a retired key alive in other processes.
	var raw []byte
	err := k.pool.QueryRow(ctx, `SELECT public_key FROM identity_service_keys WHERE kid=$1 AND retired_at IS NULL`, kid).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, unavailable(err)
	}
	return ed25519.PublicKey(raw), true, nil
}

// JWK is one public key of GET /.well-known/jwks.json (RFC 8037: OKP Ed25519).
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
}

// JWKS lists the active public keys.
func (k *ServiceKeys) JWKS(ctx context.Context) ([]JWK, error) {
	rows, err := k.pool.Query(ctx, `SELECT kid, public_key FROM identity_service_keys WHERE retired_at IS NULL ORDER BY created_at, kid`)
	if err != nil {
		return nil, unavailable(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (JWK, error) {
		var kid string
		var pub []byte
		err := r.Scan(&kid, &pub)
		return JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), Kid: kid, Alg: "EdDSA", Use: "sig"}, err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}
