package notifications

import (
	"context"
	"embed"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/migrate"
	"github.com/platform/backend/notifications/contracts"
	"github.com/platform/backend/projections"
)

//go:embed migrations/*.sql
var migrations embed.FS

func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "notifications", migrations, "migrations")
}

// Name of the notification projection.
const Name = "notifications"

// Projection is the notification projector: it writes mapped notifications
// into the delivery log (not versioned: a rebuild of it finds every key
// already there and sends nothing again). A payload that fails its contract
// is logged as 'invalid' with the reason, and the dispatcher parks it on the
// dead-letter topic; it is never emitted.
type Projection struct {
	Registry *contracts.Registry
	Mappers  map[string]Mapper // by context
	// SilentStreams are stream types none of whose events emits anything
	// (every type on them maps to Silent): passed over without decoding
	// or tracking (projections.StreamSkipper).
	SilentStreams []string
}

var _ projections.StreamSkipper = (*Projection)(nil)

// SkipsStreams is SilentStreams.
func (p *Projection) SkipsStreams() []string { return p.SilentStreams }

var _ projections.Projection = (*Projection)(nil)

func (p *Projection) Name() string { return Name }
func (p *Projection) Contexts() []string {
	out := make([]string, 0, len(p.Mappers))
	for c := range p.Mappers {
		out = append(out, c)
	}
	return out
}
func (p *Projection) Schema() []string { return nil }
func (p *Projection) Tables() []string { return nil }

func (p *Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	ctx, _, _ := cutContext(e.StreamType)
	mapper, ok := p.Mappers[ctx]
	if !ok {
		return nil, nil
	}
	ns, err := mapper(e)
	if err != nil {
		return nil, err
	}
	if len(ns) == 0 {
		return nil, nil
	}
	out, source := make([]projections.Statement, 0, len(ns)), e.ID.String()
	for _, n := range ns {
		raw, version, verr, err := envelope(p.Registry, e, source, n)
		if err != nil {
			return nil, err
		}
		state, reason := "pending", ""
		if verr != nil {
			state, reason = stateInvalid, verr.Error()
		}
		out = append(out, projections.Insert("notification_deliveries", deliveryColumns, "ON CONFLICT (idempotency_key) DO NOTHING",
			n.IdempotencyKey, n.Type, max(version, 1), e.OrganizationID, source, projections.EncodedJSON(raw), state, reason))
	}
	return out, nil
}

var deliveryColumns = []string{"idempotency_key", "type", "version", "organization_id", "source_event_id", "envelope", "state", "reason"}

func cutContext(streamType string) (string, string, bool) {
	for i := 0; i < len(streamType); i++ {
		if streamType[i] == '.' {
			return streamType[:i], streamType[i+1:], true
		}
	}
	return streamType, "", false
}
