package agent

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/internal/keyring"
)

// How a flow's steps are authorized (the delegation): every step calls the
// platform's own HTTP API with a platform API key that identity minted with
// the flow's owner as its creator, targeted at the step's app, holding the
// scopes the flow's steps of that app check. identity's /validate gives a
// key its scopes intersected with what its creator holds at that moment
// (docs/identity-access.md, "a key never exceeds its creator"), so a step
// never does more than its owner may do now: an owner who lost a
// permission sees that step refused with 403, an owner who left the
// organization with 401. The agent keeps no signing secret and validates
// nothing itself. The keys are listed with the organization's keys (an
// administrator may revoke one; the steps then fail with 401) and revoked
// when their flow is deleted or its steps need other scopes.

// KeyMinter mints and revokes the delegated keys (identity's commands).
type KeyMinter interface {
	// Mint makes a key of the organization created by owner, for app with
	// scopes, and answers its id and token.
	Mint(ctx context.Context, organizationID string, owner domain.Owner, name, app string, scopes []string) (keyID, token string, err error)
	Revoke(ctx context.Context, organizationID, keyID string) error
}

// Credentials keeps the delegated keys sealed in agent_credentials.
type Credentials struct {
	pool   *pgxpool.Pool
	sealer *keyring.Sealer
	minter KeyMinter
	log    *slog.Logger
}

func NewCredentials(pool *pgxpool.Pool, sealer *keyring.Sealer, minter KeyMinter, log *slog.Logger) *Credentials {
	return &Credentials{pool: pool, sealer: sealer, minter: minter, log: log}
}

type credential struct {
	organizationID, ownerID, scopes, keyID string
	sealed                                 keyring.Sealed
}

func scopeList(scopes []string) string {
	s := append([]string(nil), scopes...)
	sort.Strings(s)
	return strings.Join(s, " ")
}

func sealAD(flowID, appID, keyID string) []byte {
	return []byte(flowID + "\x00" + appID + "\x00" + keyID)
}

// Token is the credential a step of flowID calls app with: the flow's key
// for the app when its owner and scopes are the flow's, else a new one
// (the old one revoked).
func (c *Credentials) Token(ctx context.Context, organizationID, flowID, flowName string, owner domain.Owner, appID string, scopes []string) (string, error) {
	if c.minter == nil {
		return "", errs.Unavailable("agent: no identity service to delegate credentials", nil)
	}
	want := scopeList(scopes)
	var cur credential
	err := c.pool.QueryRow(ctx, `SELECT organization_id, owner_id, scopes, key_id, seal_key_id, nonce, sealed FROM agent_credentials
		WHERE flow_id=$1 AND app_id=$2`, flowID, appID).Scan(&cur.organizationID, &cur.ownerID, &cur.scopes, &cur.keyID,
		&cur.sealed.KeyID, &cur.sealed.Nonce, &cur.sealed.Ciphertext)
	found := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", errs.Unavailable("agent: credentials unavailable", err)
	}
	if found && cur.organizationID == organizationID && cur.ownerID == owner.ID && cur.scopes == want {
		plain, err := c.sealer.Open(cur.sealed, sealAD(flowID, appID, cur.keyID))
		if err == nil {
			return string(plain), nil
		}
		c.log.Warn("agent: a delegated key no longer opens (its ring key is gone); minting another", "flow", flowID, "app", appID)
	}
	name := "agent flow " + bound(flowName, 60) + " (" + appID + ")"
	keyID, token, err := c.minter.Mint(ctx, organizationID, owner, name, appID, scopes)
	if err != nil {
		return "", err
	}
	sealed, err := c.sealer.Seal([]byte(token), sealAD(flowID, appID, keyID))
	if err != nil {
		c.revoke(organizationID, keyID)
		return "", err
	}
	var tag int64
	if found {
		res, err := c.pool.Exec(ctx, `UPDATE agent_credentials SET organization_id=$3, owner_id=$4, scopes=$5, key_id=$6, seal_key_id=$7,
			nonce=$8, sealed=$9, created_at=now() WHERE flow_id=$1 AND app_id=$2 AND key_id=$10`,
			flowID, appID, organizationID, owner.ID, want, keyID, sealed.KeyID, sealed.Nonce, sealed.Ciphertext, cur.keyID)
		if err != nil {
			c.revoke(organizationID, keyID)
			return "", errs.Unavailable("agent: credentials unavailable", err)
		}
		tag = res.RowsAffected()
	} else {
		res, err := c.pool.Exec(ctx, `INSERT INTO agent_credentials (flow_id, app_id, organization_id, owner_id, scopes, key_id, seal_key_id, nonce, sealed)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT (flow_id, app_id) DO NOTHING`,
			flowID, appID, organizationID, owner.ID, want, keyID, sealed.KeyID, sealed.Nonce, sealed.Ciphertext)
		if err != nil {
			c.revoke(organizationID, keyID)
			return "", errs.Unavailable("agent: credentials unavailable", err)
		}
		tag = res.RowsAffected()
	}
	if tag == 0 {
		// Another worker stored its key first: use that one, drop ours.
		c.revoke(organizationID, keyID)
		return c.Token(ctx, organizationID, flowID, flowName, owner, appID, scopes)
	}
	if found {
		c.revoke(cur.organizationID, cur.keyID)
	}
	return token, nil
}

// revoke revokes a key the agent no longer uses (best effort: a key whose
// token nobody holds any more is harmless, only listed).
func (c *Credentials) revoke(organizationID, keyID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.minter.Revoke(ctx, organizationID, keyID); err != nil {
		c.log.Warn("agent: a delegated key was not revoked", "key", keyID, "err", err)
	}
}

// RevokeFlow revokes and forgets every key of a flow (deleted).
func (c *Credentials) RevokeFlow(ctx context.Context, organizationID, flowID string) error {
	rows, err := c.pool.Query(ctx, `SELECT key_id FROM agent_credentials WHERE flow_id=$1 AND organization_id=$2`, flowID, organizationID)
	if err != nil {
		return errs.Unavailable("agent: credentials unavailable", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return errs.Unavailable("agent: credentials unavailable", err)
	}
	// Revoked first, forgotten after: a failure leaves the row, and the
	// reactor's retry revokes it again (revoking twice is not an error).
	for _, k := range keys {
		if err := c.minter.Revoke(ctx, organizationID, k); err != nil {
			return err
		}
		if _, err := c.pool.Exec(ctx, `DELETE FROM agent_credentials WHERE flow_id=$1 AND key_id=$2`, flowID, k); err != nil {
			return errs.Unavailable("agent: credentials unavailable", err)
		}
	}
	return nil
}
