package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// ChooseConnection is connections.choose: the connection becomes the one
// the organization's calls to its provider use when they name none (BYOK
// traffic). Which connection is used is this explicit choice, never the
// newest: creating a connection does not move the traffic while another is
// in use.
type ChooseConnection struct {
	ConnectionID string `json:"connectionId"`
}

func (e *Edge) ChooseConnection(ctx context.Context, m commands.Meta, in ChooseConnection) (commands.Result[domain.ConnectionV1], error) {
	now := e.h.now()
	return run(ctx, e.h, m, domain.StreamConnection, domain.ConnectionStreamID(in.ConnectionID), domain.LoadConnection,
		func(c *domain.Connection) ([]event.Change, error) { return c.Choose(now) },
		connectionState, indexConnection(m.OrganizationID))
}
