package gateway

import (
	"context"
	"errors"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/gateway/vault"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// RotateCredential is connections.credentials.rotate: the connection's
// credential opened with the key it was sealed under and sealed again under
// the ring's active key (a new version; the secret is unchanged). Rotating
// every credential after a new key became active lets the old key leave the
// ring.
type RotateCredential struct {
	ConnectionID string `json:"connectionId"`
}

func (e *Edge) RotateCredential(ctx context.Context, m commands.Meta, in RotateCredential) (commands.Result[domain.ConnectionV1], error) {
	row, ok, err := e.readCredential(ctx, in.ConnectionID)
	if err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	if !ok || row.Org != m.OrganizationID {
		return commands.Result[domain.ConnectionV1]{}, errs.NotFound("connection credential")
	}
	secrets, err := e.open(row)
	if errors.Is(err, vault.ErrNoKey) || errors.Is(err, vault.ErrOpen) {
		return commands.Result[domain.ConnectionV1]{}, errs.Conflict("credential_undecryptable",
			"the key ring cannot open this credential (key "+row.Sealed.KeyID+"): set new credentials")
	}
	if err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	sealed, err := e.seal(row.Org, row.CredentialID, secrets)
	if err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	now := e.h.now()
	res, err := run(ctx, e.h, m, domain.StreamConnection, domain.ConnectionStreamID(in.ConnectionID), domain.LoadConnection,
		func(c *domain.Connection) ([]event.Change, error) { return c.Rotate(row.Version, sealed.KeyID, now) },
		connectionState, indexConnection(m.OrganizationID, storeCredential(m.OrganizationID, row.CredentialID, sealed, now)))
	if err == nil {
		e.forget(in.ConnectionID)
	}
	return res, err
}

// RotateAll rotates every credential not sealed under the active key, as
// the system (an operator's command after a new key became active); it
// returns how many it rotated and the first failures.
func (e *Edge) RotateAll(ctx context.Context) (int, error) {
	rows, err := e.h.pool.Query(ctx, `SELECT connection_id, organization_id FROM gateway_credentials WHERE key_id <> $1 ORDER BY credential_id`,
		e.cfg.Ring.Active())
	if err != nil {
		return 0, dbError(err)
	}
	type todo struct{ connection, org string }
	var list []todo
	for rows.Next() {
		var t todo
		if err := rows.Scan(&t.connection, &t.org); err != nil {
			rows.Close()
			return 0, dbError(err)
		}
		list = append(list, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, dbError(err)
	}
	rotated := 0
	var problems []error
	for _, t := range list {
		m := commands.Meta{OrganizationID: t.org, Actor: eventstore.Actor{ID: "gateway.rotation", Type: "system"}}
		if _, err := e.RotateCredential(ctx, m, RotateCredential{ConnectionID: t.connection}); err != nil {
			problems = append(problems, errors.New(t.connection+": "+err.Error()))
			continue
		}
		rotated++
	}
	return rotated, errors.Join(problems...)
}
