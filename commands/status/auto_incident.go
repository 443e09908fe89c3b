package status

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
)

// AutoIncidentReactor is the name of the reactor (consumer group,
// checkpoint rows, the actor of its commands).
const AutoIncidentReactor = "status.auto_incident"

// autoIncidentSpace is the UUID namespace of automatic incidents' ids.
var autoIncidentSpace = uuid.MustParse("0d3f6c8e-5a1b-4a57-9c55-7f0e4d2b6a11")

// AutoIncidents is the reactor behind a component's autoIncident: when the
// component degrades it opens an incident, and when the component recovers
// it resolves that incident with a final update. Both are ordinary
// commands, so they notify exactly as a person's incident does.
//
// The incident's id is derived from the degraded event's position in the
// component's stream, and every command's idempotency key from the source
// event and the step: a redelivered event, a restarted reactor or a replay of
// its consumer group opens and resolves nothing twice. A recovery finds its
// incident by the last degraded event before it in the event store.
type AutoIncidents struct{ h *Handlers }

var _ reactor.Reactor = AutoIncidents{}

// AutoIncidents returns the reactor (it needs the handlers' pool).
func (h *Handlers) AutoIncidents() AutoIncidents { return AutoIncidents{h: h} }

func (AutoIncidents) Name() string       { return AutoIncidentReactor }
func (AutoIncidents) Contexts() []string { return []string{"status"} }
func (AutoIncidents) Types() []string {
	return []string{domain.ComponentDegraded, domain.ComponentRecovered}
}

// AutoIncidentID is the id of the incident a component's degradation at
// that stream version opens.
func AutoIncidentID(componentStreamID string, degradedVersion int64) string {
	return uuid.NewSHA1(autoIncidentSpace, fmt.Appendf(nil, "%s@%d", componentStreamID, degradedVersion)).String()
}

func (a AutoIncidents) React(ctx context.Context, e eventstore.Event) error {
	p, err := eventstore.Decode[domain.ComponentCheckedV1](e)
	if err != nil {
		return err
	}
	switch e.Type {
	case domain.ComponentDegraded:
		if !p.AutoIncident {
			return nil // the component did not opt in when it degraded
		}
		_, err := a.h.createIncident(ctx, reactor.Meta(AutoIncidentReactor, e, "open"),
			AutoIncidentID(e.StreamID, e.StreamVersion), domain.AutoIncident(p))
		if e, ok := errs.As(err); ok && e.Code == "incident_exists" {
			return nil // the id is the degradation's: it is open already, whoever opened it
		}
		return err
	case domain.ComponentRecovered:
		// Whatever the setting is now: an incident the reactor opened is
		// resolved by it too, and one it did not open does not exist.
		degraded, err := a.h.lastDegraded(ctx, e.StreamID, e.StreamVersion)
		if err != nil || degraded == 0 {
			return err
		}
		_, err = a.h.updateIncident(ctx, reactor.Meta(AutoIncidentReactor, e, "resolve"),
			AutoIncidentID(e.StreamID, degraded), domain.AutoResolution(p))
		switch errs.KindOf(err) {
		case errs.KindNotFound:
			return nil // autoIncident was off when the component degraded
		case errs.KindConflict:
			if e, _ := errs.As(err); e.Code == "incident_resolved" {
				return nil // a person resolved it first
			}
		}
		return err
	}
	return nil
}

// lastDegraded is the stream version of the component's last degraded event
// before version (0 when none), from the event store: the write side holds
// every event, whatever the read models have applied.
func (h *Handlers) lastDegraded(ctx context.Context, streamID string, before int64) (int64, error) {
	if h.pool == nil {
		return 0, errs.Unavailable("status: no database for the component's history", nil)
	}
	var v int64
	err := h.pool.QueryRow(ctx, `SELECT stream_version FROM es_events WHERE stream_id = $1 AND stream_version < $2
		AND event_type = $3 ORDER BY stream_version DESC LIMIT 1`, streamID, before, domain.ComponentDegraded).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, dbError(err)
	}
	return v, nil
}

// createIncident opens an incident with a given id (incidents.create makes
// a new one; the reactor derives it).
func (h *Handlers) createIncident(ctx context.Context, m commands.Meta, id string, n domain.NewIncident) (commands.Result[domain.IncidentState], error) {
	n.ID = id
	return run(ctx, h, m, domain.StreamIncident, id,
		domain.LoadIncident, func(inc *domain.Incident) ([]event.Change, error) {
			return inc.Create(n, h.now())
		}, (*domain.Incident).State)
}

func (h *Handlers) updateIncident(ctx context.Context, m commands.Meta, id string, u domain.IncidentUpdate) (commands.Result[domain.IncidentState], error) {
	return run(ctx, h, m, domain.StreamIncident, id,
		domain.LoadIncident, func(inc *domain.Incident) ([]event.Change, error) {
			return inc.Update(u, h.now())
		}, (*domain.Incident).State)
}
