package gateway

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/keyring"
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
	if errors.Is(err, keyring.ErrNoKey) || errors.Is(err, keyring.ErrOpen) {
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

// RotateAll re-seals every credential not sealed under the active key, as
// the system: what the key upkeep does at start and on every canary tick
// (RunCanary), so that after a new key became active the old one can leave
// the ring without a command per credential. A credential no key of the
// ring opens is left as it is and counted (the canary reports it); the
// error joins the others' failures.
func (e *Edge) RotateAll(ctx context.Context) (rotated, unreadable int, err error) {
	if e.ring.Active() == "" {
		return 0, 0, nil // nothing to seal with
	}
	rows, err := e.h.pool.Query(ctx, `SELECT connection_id, organization_id FROM gateway_credentials WHERE key_id <> $1 ORDER BY credential_id`,
		e.ring.Active())
	if err != nil {
		return 0, 0, dbError(err)
	}
	type todo struct{ connection, org string }
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (todo, error) {
		var t todo
		return t, r.Scan(&t.connection, &t.org)
	})
	if err != nil {
		return 0, 0, dbError(err)
	}
	var problems []error
	for _, t := range list {
		m := commands.Meta{OrganizationID: t.org, Actor: eventstore.Actor{ID: "gateway.rotation", Type: "system"}}
		_, err := e.RotateCredential(ctx, m, RotateCredential{ConnectionID: t.connection})
		switch {
		case errs.CodeOf(err) == "credential_undecryptable":
			unreadable++
		case err != nil:
			problems = append(problems, errors.New(t.connection+": "+err.Error()))
		default:
			rotated++
		}
	}
	return rotated, unreadable, errors.Join(problems...)
}
