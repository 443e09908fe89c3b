package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// ConsumeMeters counts one usage event on the organization's meters (the
// defined ones and the soft caps' thresholds) and records each threshold it
// crosses, deciding under the meters stream's lock: concurrent consumption
// serializes, and a crossing is appended once per meter, threshold and
// period. The meters reactor issues it with a key from the usage event, so a
// redelivery or a replay of the reactor counts nothing twice.
func (h *Handlers) ConsumeMeters(ctx context.Context, m commands.Meta, usageEventID string, rec domain.UsageRecordedV1,
	caps []domain.SpendCap) (commands.Result[domain.Meters], error) {
	return run(ctx, h, m, domain.StreamMeters, domain.MetersStreamID(m.OrganizationID), domain.LoadMeters,
		func(ms *domain.Meters) ([]event.Change, error) { return ms.Consume(usageEventID, rec, caps, h.now()) }, metersModel)
}

// Billing reads an organization's billing state from the write side (its
// stream's snapshot).
func (h *Handlers) Billing(ctx context.Context, org string) (domain.BillingState, error) {
	history, err := h.store.LoadLatest(ctx, domain.BillingStreamID(org), domain.SnapshotSchema)
	if err != nil {
		return domain.BillingState{}, dbError(err)
	}
	b, err := domain.LoadBilling(commands.Recorded(history))
	if err != nil {
		return domain.BillingState{}, err
	}
	return b.State, nil
}
