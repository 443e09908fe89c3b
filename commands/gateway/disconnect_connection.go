package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// ChangeConnectionStatus is connections.disconnect, .deauthorize and
// .delete: the connection stops serving calls (gateway.provider.disconnected).
type ChangeConnectionStatus struct {
	ConnectionID string  `json:"connectionId"`
	Reason       *string `json:"reason"`
}

// Disconnect: the organization stops using the connection (new
// credentials reconnect it).
func (e *Edge) Disconnect(ctx context.Context, m commands.Meta, in ChangeConnectionStatus) (commands.Result[domain.ConnectionV1], error) {
	return e.changeStatus(ctx, m, in, domain.StatusDisconnected)
}

// Deauthorize: the provider account withdrew the gateway's access (or its
// credential was refused); new credentials reconnect it.
func (e *Edge) Deauthorize(ctx context.Context, m commands.Meta, in ChangeConnectionStatus) (commands.Result[domain.ConnectionV1], error) {
	return e.changeStatus(ctx, m, in, domain.StatusDeauthorized)
}

// DeleteConnection: final; the credential's ciphertext is deleted in the
// same transaction.
func (e *Edge) DeleteConnection(ctx context.Context, m commands.Meta, in ChangeConnectionStatus) (commands.Result[domain.ConnectionV1], error) {
	return e.changeStatus(ctx, m, in, domain.StatusDeleted)
}

func (e *Edge) changeStatus(ctx context.Context, m commands.Meta, in ChangeConnectionStatus, status string) (commands.Result[domain.ConnectionV1], error) {
	reason := ""
	if in.Reason != nil {
		reason = *in.Reason
	}
	var more []func(domain.ConnectionV1) eventstore.Write
	if status == domain.StatusDeleted {
		more = append(more, func(domain.ConnectionV1) eventstore.Write {
			return eventstore.Write{SQL: `DELETE FROM gateway_credentials WHERE connection_id = $1`, Args: []any{in.ConnectionID}}
		})
	}
	now := e.h.now()
	res, err := run(ctx, e.h, m, domain.StreamConnection, domain.ConnectionStreamID(in.ConnectionID), domain.LoadConnection,
		func(c *domain.Connection) ([]event.Change, error) { return c.Disconnect(status, reason, now) },
		connectionState, indexConnection(m.OrganizationID, more...))
	if err == nil {
		e.forget(in.ConnectionID)
	}
	return res, err
}
