package gateway

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/internal/leader"
)

// CanaryActor is the actor of what the canary records.
const CanaryActor = "gateway.canary"

// canaryBatch bounds one read of the credential table.
const canaryBatch = 200

// RunCanary runs the key upkeep in one process of the deployment (leader
// lock gateway.credential_canary): once when it starts leading, then every
// CanaryInterval (a negative interval: only the first run). The upkeep
// re-seals what is not under the active key (RotateAll), then runs the
// canary over what is left. Every process must hold a new key before it
// becomes active: one without it cannot open what the others seal.
func (e *Edge) RunCanary(ctx context.Context, pool *pgxpool.Pool) error {
	return leader.Run(ctx, pool, CanaryLock, leader.Config{}, e.log, func(ctx context.Context) error {
		for {
			if n, unreadable, err := e.RotateAll(ctx); err != nil {
				e.log.Warn("gateway: re-sealing credentials under the active key stopped; the next tick goes on", "rotated", n, "err", err)
			} else if n > 0 {
				e.log.Info("gateway: credentials re-sealed under the active key", "rotated", n, "unreadable", unreadable)
			}
			if n, err := e.Canary(ctx); err != nil {
				e.log.Warn("gateway: credential canary failed", "err", err)
			} else if n > 0 {
				e.log.Error("gateway: credentials the key ring cannot decrypt", "count", n)
			}
			if e.cfg.CanaryInterval < 0 {
				<-ctx.Done()
				return nil
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(e.cfg.CanaryInterval):
			}
		}
	})
}

// Canary tries to open every stored credential with the key ring and
// records each one it cannot (gateway.credential.undecryptable, once per
// credential version and key id: the command's key and the domain both
// say so). It returns how many it found.
func (e *Edge) Canary(ctx context.Context) (int, error) {
	found, after := 0, ""
	for {
		rows, err := e.h.pool.Query(ctx, `SELECT credential_id, connection_id, organization_id, version, key_id, nonce, ciphertext
			FROM gateway_credentials WHERE credential_id > $1 ORDER BY credential_id LIMIT $2`, after, canaryBatch)
		if err != nil {
			return found, dbError(err)
		}
		var batch []credentialRow
		for rows.Next() {
			var r credentialRow
			if err := rows.Scan(&r.CredentialID, &r.ConnectionID, &r.Org, &r.Version, &r.Sealed.KeyID, &r.Sealed.Nonce, &r.Sealed.Ciphertext); err != nil {
				rows.Close()
				return found, dbError(err)
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return found, dbError(err)
		}
		for _, r := range batch {
			after = r.CredentialID
			if _, err := e.open(r); err == nil {
				continue
			} else if !errors.Is(err, keyring.ErrNoKey) && !errors.Is(err, keyring.ErrOpen) {
				return found, err
			}
			found++
			if err := e.reportUndecryptable(ctx, r); err != nil {
				return found, err
			}
		}
		if len(batch) < canaryBatch {
			return found, nil
		}
	}
}

// reportUndecryptable is the canary's command on the connection's stream.
func (e *Edge) reportUndecryptable(ctx context.Context, r credentialRow) error {
	key := fmt.Sprintf("canary:%s:v%d:%s", r.CredentialID, r.Version, r.Sealed.KeyID)
	m := commands.Meta{OrganizationID: r.Org, Actor: eventstore.Actor{ID: CanaryActor, Type: "system"}, IdempotencyKey: key,
		RequestHash: eventstore.HashRequest([]byte(key)), CorrelationID: key}
	now := e.h.now()
	reported := false
	res, err := run(ctx, e.h, m, domain.StreamConnection, domain.ConnectionStreamID(r.ConnectionID), domain.LoadConnection,
		func(c *domain.Connection) ([]event.Change, error) {
			changes := c.ReportUndecryptable(r.Org, r.Version, r.Sealed.KeyID, now)
			reported = len(changes) > 0
			return changes, nil
		}, connectionState, indexConnection(r.Org))
	if err == nil && reported && !res.Replayed {
		credentialWarnings.WithLabelValues("undecryptable").Inc()
	}
	return err
}
