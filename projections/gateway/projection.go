// Package gateway is the usage gateway's read model: usage events, daily
// snapshots, key health, month-to-date billing by provider, app, model and
// operation (raw units, so any price table re-rates them), spend caps and
// the fee, meters, provisioned organizations and the gateway's own audit
// trail. Reducers are per-area tables (usage.go, billing.go, meters.go,
// health.go, organization.go) merged here; an area added later brings its
// own table and its tables' schema.
package gateway

import (
	"maps"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection (consumer group, registry rows).
const Name = "gateway"

// Projection builds the gateway read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"gateway"} }

func (Projection) Tables() []string {
	var out []string
	for _, a := range areas {
		out = append(out, a.tables...)
	}
	return out
}

func (Projection) Schema() []string {
	var out []string
	for _, a := range areas {
		out = append(out, a.schema...)
	}
	return out
}

func (Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

var _ projections.OneEventStreams = Projection{}

// OneEventStreams: a call's usage stream holds its one usage event, whose
// row in gateway_usage_events is keyed by its event id.
func (Projection) OneEventStreams() map[string]string {
	return map[string]string{domain.StreamUsage: "{{gateway_usage_events}}"}
}

// Reducers is every area's table, merged.
func (Projection) Reducers() projections.Reducers { return reducers }

// area is one part of the read model: its tables, their schema and its
// reducers.
type area struct {
	tables   []string
	schema   []string
	reducers projections.Reducers
	// usage applies a usage event, the context's most frequent event by
	// far (one a metered call): the areas that apply it share one decode
	// of its payload.
	usage func(eventstore.Event, domain.UsageRecordedV1) ([]projections.Statement, error)
}

// areas of the read model; a new area is one more line.
var areas = []area{usageArea, billingArea, meterArea, healthArea, organizationArea, auditArea, edgeArea}

var reducers = merge(areas)

// merge joins the areas' reducer tables: an event type several areas
// apply (the audit trail records configuration changes the billing view
// also applies) runs each area's reducer in order.
func merge(as []area) projections.Reducers {
	out := projections.Reducers{}
	var usage []func(eventstore.Event, domain.UsageRecordedV1) ([]projections.Statement, error)
	for _, a := range as {
		for t, f := range a.reducers {
			prev, seen := out[t]
			switch {
			case !seen || prev == nil:
				out[t] = f
			case f != nil:
				out[t] = both(prev, f)
			}
		}
		if a.usage != nil {
			usage = append(usage, a.usage)
		}
	}
	if len(usage) > 0 {
		out[domain.UsageRecorded] = func(e eventstore.Event) ([]projections.Statement, error) {
			p, err := decodeUsage(e)
			if err != nil {
				return nil, err
			}
			var all []projections.Statement
			for _, f := range usage {
				s, err := f(e, p)
				if err != nil {
					return nil, err
				}
				all = append(all, s...)
			}
			return all, nil
		}
	}
	return out
}

func both(a, b projections.Reducer) projections.Reducer {
	return func(e eventstore.Event) ([]projections.Statement, error) {
		x, err := a(e)
		if err != nil {
			return nil, err
		}
		y, err := b(e)
		return append(x, y...), err
	}
}

// ignored maps types an area does not apply to Ignore, so its table
// declares every gateway type it leaves alone.
func ignored(handled projections.Reducers) projections.Reducers {
	out := maps.Clone(handled)
	for _, t := range domain.EventTypes {
		if _, ok := out[t]; !ok {
			out[t] = projections.Ignore
		}
	}
	return out
}
