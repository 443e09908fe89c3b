package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands/reactor"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
)

// The reactors' names (consumer groups, checkpoints): stable.
const (
	RunsReactor     = "agent.runs"
	TriggersReactor = "agent.event_triggers"
)

// Runs is the record behind what the agent's commands do at once after
// they commit (and a process killed in between would miss): a scheduled
// run due is started, a step put on its way gets its job, a step's job
// outcome settles the step (and the next step goes), a deleted flow's keys
// are revoked. Each reaction is idempotent (a run id starts once, a job id
// is requested once, a settled step ignores its job), and its commands carry
// keys derived from the event.
type Runs struct{ h *Handlers }

var _ reactor.Reactor = Runs{}

// Runs is the runs reactor.
func (h *Handlers) Runs() Runs { return Runs{h: h} }

var jobTypes = domjobs.TypesOf(domain.Context)

func (Runs) Name() string       { return RunsReactor }
func (Runs) Contexts() []string { return []string{domain.Context} }
func (Runs) Types() []string {
	return []string{domain.FlowTriggered, domain.StepRequested, domain.FlowDeleted, jobTypes.Succeeded, jobTypes.Failed, jobTypes.Cancelled}
}

func (r Runs) React(ctx context.Context, e eventstore.Event) error {
	h := r.h
	switch e.Type {
	case domain.FlowTriggered:
		p, err := eventstore.Decode[domain.FlowTriggeredV1](e)
		if err != nil {
			return err
		}
		f, err := h.Flow(ctx, e.OrganizationID, p.FlowID)
		if errs.KindOf(err) == errs.KindNotFound {
			return nil // deleted since
		}
		if err != nil {
			return err
		}
		_, err = h.start(ctx, reactor.Meta(RunsReactor, e, "start"), p.RunID, f, scheduleTrigger(p.DueAt, p.At), 0)
		if errs.CodeOf(err) == "flow_paused" {
			return nil
		}
		return err
	case domain.StepRequested:
		p, err := eventstore.Decode[domain.StepRequestedV1](e)
		if err != nil {
			return err
		}
		return h.requestJob(ctx, e.OrganizationID, p.RunID, p.Step)
	case domain.FlowDeleted:
		p, err := eventstore.Decode[domain.FlowStateV1](e)
		if err != nil {
			return err
		}
		return h.creds.RevokeFlow(ctx, e.OrganizationID, p.FlowID)
	}
	je, err := eventstore.Decode[domjobs.Event](e)
	if err != nil {
		return err
	}
	if je.Job.Kind != domain.StepKind {
		return nil
	}
	return h.RecordStep(ctx, reactor.Meta(RunsReactor, e, "record"), je.Job)
}

// Triggers starts the runs of flows triggered by a platform event type: for
// each event of a type some active flow of its organization names, a run
// per flow (id derived from the flow and the event: redelivery and replays
// start nothing twice). Events recorded before the flow was active start
// nothing (the reactor reads the log from its start). An event caused by a
// step of a run of the same flow starts nothing (a flow never triggers
// itself), and chains of runs through other flows stop at the agent's
// maximum depth.
type Triggers struct {
	h     *Handlers
	types []string
}

var (
	_ reactor.Reactor  = (*Triggers)(nil)
	_ reactor.Preparer = (*Triggers)(nil)
	_ reactor.Selector = (*Triggers)(nil)
)

// Triggers is the event-trigger reactor over types (every platform event
// type but the agent's own).
func (h *Handlers) Triggers(types []string) *Triggers {
	var own []string
	for _, t := range types {
		if !slices.Contains(own, t) {
			own = append(own, t)
		}
	}
	return &Triggers{h: h, types: own}
}

func (*Triggers) Name() string { return TriggersReactor }

// Contexts are every context whose event types it reads.
func (t *Triggers) Contexts() []string {
	var out []string
	for _, typ := range t.types {
		c, _, _ := strings.Cut(typ, ".")
		if c != domain.Context && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func (t *Triggers) Types() []string { return t.types }

type trigger struct {
	flowID      string
	activeSince time.Time
}

type triggersKey struct{}

// Prepare reads the triggers of a batch's event types in one query.
func (t *Triggers) Prepare(ctx context.Context, events []eventstore.Event) context.Context {
	var types []string
	for _, e := range events {
		if !slices.Contains(types, e.Type) {
			types = append(types, e.Type)
		}
	}
	found, err := t.lookup(ctx, types)
	if err != nil {
		return ctx
	}
	return context.WithValue(ctx, triggersKey{}, found)
}

// Select answers which of a batch's event types some flow names: the
// others start nothing, so their events pass undecoded (every usage event
// of the gateway, each decoded, looked up and checkpointed, cost a
// completion a durable commit of this reactor at a moderate load).
func (t *Triggers) Select(ctx context.Context, types []string) (map[string]bool, error) {
	rows, err := t.h.pool.Query(ctx, `SELECT DISTINCT event_type FROM agent_triggers WHERE event_type = ANY($1)`, types)
	if err != nil {
		return nil, err
	}
	named, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(named))
	for _, typ := range named {
		out[typ] = true
	}
	return out, nil
}

// lookup reads the triggers of event types, by organization and type.
func (t *Triggers) lookup(ctx context.Context, types []string) (map[string][]trigger, error) {
	rows, err := t.h.pool.Query(ctx, `SELECT organization_id, event_type, flow_id, active_since FROM agent_triggers WHERE event_type = ANY($1)`, types)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]trigger{}
	for rows.Next() {
		var org, typ string
		var tr trigger
		if err := rows.Scan(&org, &typ, &tr.flowID, &tr.activeSince); err != nil {
			return nil, err
		}
		out[org+"\x00"+typ] = append(out[org+"\x00"+typ], tr)
	}
	return out, rows.Err()
}

func (t *Triggers) React(ctx context.Context, e eventstore.Event) error {
	found, ok := ctx.Value(triggersKey{}).(map[string][]trigger)
	if !ok {
		var err error
		if found, err = t.lookup(ctx, []string{e.Type}); err != nil {
			return errs.Unavailable("agent: triggers unavailable", err)
		}
	}
	h := t.h
	for _, tr := range found[e.OrganizationID+"\x00"+e.Type] {
		if e.RecordedAt.Before(tr.activeSince) {
			continue
		}
		depth := 0
		if causeFlow, causeRun, ok := causedBy(e.CorrelationID); ok {
			if causeFlow == tr.flowID {
				continue // a flow never triggers itself
			}
			if parent, err := h.Run(ctx, e.OrganizationID, causeRun); err == nil {
				depth = parent.Depth + 1
			}
			if depth > h.cfg.MaxDepth {
				h.log.Warn("agent: an event-triggered run was not started: the chain of runs is too deep", "flow", tr.flowID,
					"event", e.ID, "depth", depth)
				continue
			}
		}
		f, err := h.Flow(ctx, e.OrganizationID, tr.flowID)
		if errs.KindOf(err) == errs.KindNotFound {
			continue
		}
		if err != nil {
			return err
		}
		data := e.Payload
		if len(data) > MaxTriggerData || !json.Valid(data) {
			data = json.RawMessage("null")
		}
		trig := domain.TriggerData{Type: domain.TriggerEvent, EventID: e.ID.String(), EventType: e.Type, StreamID: e.StreamID,
			Position: eventstore.Position{StreamID: e.StreamID, Version: e.StreamVersion}.String(), Data: data, At: e.RecordedAt}
		_, err = h.start(ctx, reactor.Meta(TriggersReactor, e, tr.flowID), domain.EventRunID(tr.flowID, e.ID.String()), f, trig, depth)
		if errs.CodeOf(err) == "flow_paused" {
			continue
		}
		if err != nil {
			return fmt.Errorf("agent: start the run of flow %s: %w", tr.flowID, err)
		}
	}
	return nil
}
