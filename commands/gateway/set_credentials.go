package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// SetCredentials is connections.credentials.set: a new secret for the
// connection (a new version, sealed under the active key); it reconnects a
// disconnected or deauthorized connection.
type SetCredentials struct {
	ConnectionID string  `json:"connectionId"`
	Credentials  Secrets `json:"credentials"`
}

func (e *Edge) SetCredentials(ctx context.Context, m commands.Meta, in SetCredentials) (commands.Result[domain.ConnectionV1], error) {
	if err := e.checkSecrets(in.Credentials); err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	_, credID := idsOf(in.ConnectionID)
	sealed, err := e.seal(m.OrganizationID, credID, in.Credentials)
	if err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	now := e.h.now()
	res, err := run(ctx, e.h, m, domain.StreamConnection, domain.ConnectionStreamID(in.ConnectionID), domain.LoadConnection,
		func(c *domain.Connection) ([]event.Change, error) {
			if c.Exists() && c.State.Credential.CredentialID != credID {
				return nil, errs.NotFound("connection")
			}
			return c.SetCredential(sealed.KeyID, in.Credentials.Members(), now)
		},
		connectionState, indexConnection(m.OrganizationID, storeCredential(m.OrganizationID, credID, sealed, now)))
	if err == nil {
		e.forget(in.ConnectionID)
	}
	return res, err
}

// idsOf is the credential id of a connection id (they share the suffix).
func idsOf(connectionID string) (string, string) {
	if len(connectionID) > len("conn_") && connectionID[:5] == "conn_" {
		return connectionID, "cred_" + connectionID[5:]
	}
	return connectionID, ""
}
