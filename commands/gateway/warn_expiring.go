package gateway

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// ExpiryActor is the actor of the expiry scan's commands.
const ExpiryActor = "gateway.expiry_scan"

// WarnExpiring is the scan's command for one connection: it emits
// gateway.connection.expiring when the connection is active and its token
// expires within seven days of now, once per connection and expiry (the
// domain decides under the stream lock; a warned expiry is remembered).
func (e *Edge) WarnExpiring(ctx context.Context, org, connectionID string, now time.Time) (commands.Result[domain.ConnectionV1], error) {
	m := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: ExpiryActor, Type: "system"}, CorrelationID: "expiry-scan"}
	warned := false
	res, err := run(ctx, e.h, m, domain.StreamConnection, domain.ConnectionStreamID(connectionID), domain.LoadConnection,
		func(c *domain.Connection) ([]event.Change, error) {
			changes := c.WarnExpiring(now)
			warned = len(changes) > 0
			return changes, nil
		}, connectionState, indexConnection(org))
	if err == nil && warned && !res.Replayed {
		credentialWarnings.WithLabelValues("expiring").Inc()
	}
	return res, err
}
