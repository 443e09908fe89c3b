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
	billing, err := r.h.Billing(ctx, e.OrganizationID)
	if err != nil {
		return err
	}
	_, err = r.h.ConsumeMeters(ctx, reactor.Meta(MetersReactor, e, "consume"), e.ID.String(), rec, billing.Caps)
	return err
}
