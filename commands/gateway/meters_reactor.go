package gateway

import (
	"context"

	"github.com/platform/backend/commands/reactor"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// MetersReactor is the name of the reactor that feeds usage events to the
// organization's meters (consumer group, checkpoints, actor).
const MetersReactor = "gateway.meters"

// Meters is the reactor behind usage meters and soft caps' thresholds: per
// usage event, one ConsumeMeters command on the organization's meters
// stream, keyed by the event (reactor.Meta), so redelivery, kill -9 and a
// replay of its consumer group count nothing twice.
type Meters struct{ h *Handlers }

var _ reactor.Reactor = Meters{}

// MetersReactor returns the reactor.
func (h *Handlers) MetersReactor() Meters { return Meters{h: h} }

func (Meters) Name() string       { return MetersReactor }
func (Meters) Contexts() []string { return []string{"gateway"} }
func (Meters) Types() []string    { return []string{domain.UsageRecorded} }

func (r Meters) React(ctx context.Context, e eventstore.Event) error {
	rec, err := eventstore.Decode[domain.UsageRecordedV1](e)
	if err != nil {
		return err
	}
	// Most organizations have no meter and no soft cap: one read of the two
	// stream heads tells, and nothing else is done for them.
	heads, err := r.h.store.Heads(ctx, domain.MetersStreamID(e.OrganizationID), domain.BillingStreamID(e.OrganizationID))
	if err != nil {
		return dbError(err)
	}
	_, meters := heads[domain.MetersStreamID(e.OrganizationID)]
	_, billed := heads[domain.BillingStreamID(e.OrganizationID)]
	if !meters && !billed {
		return nil
	}
	billing := domain.BillingState{}
	if billed {
		if billing, err = r.h.Billing(ctx, e.OrganizationID); err != nil {
			return err
		}
	}
	if !meters && !hasSoftThresholds(billing.Caps) {
		return nil
	}
	_, err = r.h.ConsumeMeters(ctx, reactor.Meta(MetersReactor, e, "consume"), e.ID.String(), rec, billing.Caps)
	return err
}

func hasSoftThresholds(caps []domain.SpendCap) bool {
	for _, c := range caps {
		if c.IsActive && c.CapMode == domain.CapSoft && len(c.NotifyThresholds) > 0 {
			return true
		}
	}
	return false
}
