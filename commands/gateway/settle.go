package gateway

import (
	"context"
	"slices"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// settle records a call once, in one event-store transaction: the usage
// event on the call's own stream (its id is the request id, so a retried
// settle, or the sweeper racing the call, appends nothing), the reservation
// deleted, and each budget row of the organization and the principal moving
// the reservation to settled at the actual cost. Budget rows are written in
// scope order, as reservations lock them.
func (h *Handlers) settle(ctx context.Context, m commands.Meta, rec domain.UsageRecordedV1, reservedScopes []string) (bool, error) {
	writes := []eventstore.Write{{SQL: `DELETE FROM gateway_reservations WHERE request_id = $1`, Args: []any{rec.RequestID}}}
	for _, scope := range []string{domain.ScopeOrganization, domain.UserScope(rec.PrincipalID)} {
		release := int64(0)
		if slices.Contains(reservedScopes, scope) {
			release = rec.Reserved
		}
		writes = append(writes, eventstore.Write{SQL: `INSERT INTO gateway_budgets (organization_id, scope, month, settled, reserved)
			VALUES ($1, $2, $3, $4, 0) ON CONFLICT (organization_id, scope, month) DO UPDATE
			SET settled = gateway_budgets.settled + EXCLUDED.settled, reserved = gateway_budgets.reserved - $5`,
			Args: []any{m.OrganizationID, scope, rec.Month, rec.Cost, release}})
	}
	res, err := commands.Run(ctx, h.store, m, domain.StreamUsage, domain.UsageStreamID(rec.RequestID),
		func(history []event.Recorded) ([]event.Change, bool, error) {
			changes, err := domain.Settle(history, rec)
			return changes, len(changes) > 0, err
		},
		commands.Also(func(bool) []eventstore.Write { return writes }))
	return res.Value, err
}
