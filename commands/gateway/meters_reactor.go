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

var (
	_ reactor.Reactor  = Meters{}
	_ reactor.Preparer = Meters{}
)

// MetersReactor returns the reactor.
func (h *Handlers) MetersReactor() Meters { return Meters{h: h} }

func (Meters) Name() string       { return MetersReactor }
func (Meters) Contexts() []string { return []string{"gateway"} }
func (Meters) Types() []string    { return []string{domain.UsageRecorded} }

func (r Meters) React(ctx context.Context, e eventstore.Event) error {
	// Most organizations have no meter and no soft cap: one read of the two
	// stream heads tells (the batch's read, when Prepare made one), and
	// nothing else is done for them, not even decoding the event.
	p, _ := ctx.Value(preparedKey{}).(prepared)
	heads := p.heads
	if heads == nil {
		var err error
		if heads, err = r.h.store.Heads(ctx, domain.MetersStreamID(e.OrganizationID), domain.BillingStreamID(e.OrganizationID)); err != nil {
			return dbError(err)
		}
	}
	_, meters := heads[domain.MetersStreamID(e.OrganizationID)]
	_, billed := heads[domain.BillingStreamID(e.OrganizationID)]
	if !meters && !billed {
		return nil
	}
	billing := domain.BillingState{}
	if billed {
		var ok bool
		if billing, ok = p.billing[e.OrganizationID]; !ok {
			var err error
			if billing, err = r.h.Billing(ctx, e.OrganizationID); err != nil {
				return err
			}
		}
	}
	if !meters && !hasSoftThresholds(billing.Caps) {
		return nil
	}
	rec, err := eventstore.Decode[domain.UsageRecordedV1](e)
	if err != nil {
		return err
	}
	_, err = r.h.ConsumeMeters(ctx, reactor.Meta(MetersReactor, e, "consume"), e.ID.String(), rec, billing.Caps)
	return err
}

// prepared is what Prepare read for a batch: the meters and billing stream
// heads of its organizations, and the billing state of each that has one.
type prepared struct {
	heads   map[string]int64
	billing map[string]domain.BillingState
}

// preparedKey is the context key of a batch's prepared reads.
type preparedKey struct{}

// Prepare reads the meters and billing stream heads of every organization
// of a batch in one query (reactor.Preparer), instead of one query per usage
// event, and the billing state (caps) of each organization that has one
// once, instead of once per usage event (a call of an organization with a
// cap paid a read of its billing stream): read after the batch's events
// committed, as each reaction's own reads would be. No reaction of the
// batch creates either stream for an organization that has neither (it
// does nothing for it), nor changes a billing stream. A billing state that
// cannot be read is left out: React reads it alone, and fails as before.
func (r Meters) Prepare(ctx context.Context, events []eventstore.Event) context.Context {
	seen := map[string]bool{}
	var orgs, ids []string
	for _, e := range events {
		if !seen[e.OrganizationID] {
			seen[e.OrganizationID] = true
			orgs = append(orgs, e.OrganizationID)
			ids = append(ids, domain.MetersStreamID(e.OrganizationID), domain.BillingStreamID(e.OrganizationID))
		}
	}
	heads, err := r.h.store.Heads(ctx, ids...)
	if err != nil {
		return ctx
	}
	p := prepared{heads: heads, billing: map[string]domain.BillingState{}}
	for _, org := range orgs {
		if _, billed := heads[domain.BillingStreamID(org)]; billed {
			if b, err := r.h.Billing(ctx, org); err == nil {
				p.billing[org] = b
			}
		}
	}
	return context.WithValue(ctx, preparedKey{}, p)
}

func hasSoftThresholds(caps []domain.SpendCap) bool {
	for _, c := range caps {
		if c.IsActive && c.CapMode == domain.CapSoft && len(c.NotifyThresholds) > 0 {
			return true
		}
	}
	return false
}
