package projections

import (
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
)

// JobReducers is a read model's table for a context's durable jobs: every
// job event type of the context (domain/jobs.EventTypes) is reduced by f,
// which gets the job as it is after the event (every job event carries
// it). A context keeps its own read model of its jobs (its ids, filters,
// tenancy and state names); merge this table into the projection's.
func JobReducers(context string, f func(e eventstore.Event, j domjobs.Job) ([]Statement, error)) Reducers {
	r := Reducers{}
	for _, typ := range domjobs.EventTypes(context) {
		r[typ] = On(func(e eventstore.Event, p domjobs.Event) ([]Statement, error) { return f(e, p.Job) })
	}
	return r
}
