package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// TriggerInput is a flow's trigger as a client writes it.
type TriggerInput struct {
	Type         string     `json:"type"`
	EventType    string     `json:"eventType"`
	EveryMinutes int        `json:"everyMinutes"`
	StartAt      *time.Time `json:"startAt"`
}

// StepInput is a flow's step as a client writes it: an action by its
// service and descriptor name with an input template, or a task.
type StepInput struct {
	Name               string          `json:"name"`
	Kind               string          `json:"kind"`
	Service            string          `json:"service"`
	Action             string          `json:"action"`
	Input              json.RawMessage `json:"input"`
	Instructions       string          `json:"instructions"`
	ApprovalTTLMinutes int             `json:"approvalTtlMinutes"`
	OrganizationID     string          `json:"organizationId"`
}

func definitionOf(name, description string, t TriggerInput, steps []StepInput) domain.Definition {
	d := domain.Definition{Name: name, Description: description, Trigger: domain.Trigger{Type: t.Type, EventType: t.EventType,
		EveryMinutes: t.EveryMinutes, StartAt: t.StartAt}, Steps: make([]domain.Step, len(steps))}
	for i, s := range steps {
		d.Steps[i] = domain.Step{Name: s.Name, Kind: s.Kind, Service: s.Service, Action: s.Action, Input: s.Input,
			Instructions: s.Instructions, ApprovalTTLMinutes: s.ApprovalTTLMinutes, OrganizationID: s.OrganizationID}
	}
	return d
}

// ownerOf is who a flow saved by p acts for: a person's session or a key.
// A service identity holds no permissions to delegate.
func ownerOf(p principal.Principal) (domain.Owner, error) {
	if p.Type != "user" && p.Type != "api_key" {
		return domain.Owner{}, errs.PermissionDenied("a flow acts for a person or an API key; a service identity has no permissions to delegate")
	}
	return domain.Owner{ID: p.ID, Type: p.Type, UserID: p.ActingUser()}, nil
}

// resolve checks a definition and binds its action steps to their
// descriptors. A step acting in another organization is refused (no policy
// decision can allow it) and the refusal recorded; a step whose
// permission the saver does not hold now is refused (a flow never acts
// beyond its owner).
func (h *Handlers) resolve(ctx context.Context, m commands.Meta, p principal.Principal, flowID, subject string, d domain.Definition) (domain.Definition, error) {
	d.Normalize()
	if f := d.Check(h.known); len(f) > 0 {
		return d, errs.Invalid(f...)
	}
	if foreign := d.ForeignSteps(m.OrganizationID); len(foreign) > 0 {
		var refusals []domain.Refusal
		for _, i := range foreign {
			s := d.Steps[i]
			refusals = append(refusals, domain.Refusal{Subject: subject, FlowID: flowID, Step: i, Action: s.Service + "." + s.Action,
				TargetOrganizationID: s.OrganizationID, By: actorOf(p)})
		}
		if err := h.recordRefusals(ctx, m, refusals); err != nil {
			return d, err
		}
		return d, domain.CrossOrganizationRefused("/steps/" + strconv.Itoa(foreign[0]) + "/organizationId")
	}
	var fields []errs.Field
	for i := range d.Steps {
		s := &d.Steps[i]
		if s.Kind != domain.KindAction {
			continue
		}
		at := "/steps/" + strconv.Itoa(i)
		desc, app, err := h.catalog.Find(ctx, s.Service, s.Action)
		switch {
		case errs.KindOf(err) == errs.KindNotFound && h.catalog.BaseURL(s.Service) == "":
			fields = append(fields, errs.Field{Pointer: at + "/service", Detail: "no such service"})
			continue
		case errs.KindOf(err) == errs.KindNotFound:
			fields = append(fields, errs.Field{Pointer: at + "/action", Detail: "the service has no such action (see GET /api/flow-actions)"})
			continue
		case err != nil:
			return d, err
		}
		if why := Callable(desc); why != "" {
			fields = append(fields, errs.Field{Pointer: at + "/action", Detail: why})
			continue
		}
		if desc.Permission != "" && !p.Allows(principal.Qualify(app, desc.Permission)) {
			return d, errs.PermissionDenied("step " + strconv.Itoa(i) + " calls " + s.Service + " " + s.Action + ", which needs " +
				principal.Qualify(app, desc.Permission) + ": a flow never acts beyond its owner, and the credential saving it lacks that permission")
		}
		if literal(s.Input) {
			input := s.Input
			if len(bytes.TrimSpace(input)) == 0 {
				input = json.RawMessage(`{}`)
			}
			problems, err := desc.Check(input)
			if err != nil {
				return d, errs.Unavailable("the action's input schema could not be read", err)
			}
			for _, pr := range problems {
				fields = append(fields, errs.Field{Pointer: at + "/input" + pr.Pointer, Detail: InputSchemaRefuses + pr.Message})
			}
		}
		s.Call = &domain.Call{AppID: app, Method: desc.Method, Path: desc.Path, Permission: desc.Permission, ReadOnly: desc.ReadOnly,
			Destructive: desc.Destructive, RequiresConfirmation: desc.RequiresConfirmation}
	}
	if len(fields) > 0 {
		return d, errs.Invalid(fields...)
	}
	return d, nil
}

// InputSchemaRefuses starts the problems a literal input template meets in
// its action's input schema.
const InputSchemaRefuses = "the action's input schema refuses it: "

// literal: a template without references, checkable against the action's
// input schema when the flow is saved.
func literal(template json.RawMessage) bool {
	return !bytes.Contains(template, []byte(`"$from"`)) && !bytes.Contains(template, []byte(`"$literal"`))
}

// recordRefusals appends the refusals to the organization's policy stream:
// a command of its own, committed although the request is refused.
func (h *Handlers) recordRefusals(ctx context.Context, m commands.Meta, refusals []domain.Refusal) error {
	rm := derived(m, "policy-refusal")
	_, err := commands.Run(ctx, h.store, rm, domain.StreamPolicy, domain.PolicyStreamID(m.OrganizationID), func([]event.Recorded) ([]event.Change, struct{}, error) {
		return domain.RecordRefusals(refusals, h.now()), struct{}{}, nil
	})
	return err
}

// triggerWrites keep agent_triggers in step with a flow: a row while it is
// active with an event trigger (since when it was, for this event type).
func triggerWrites(organizationID string) func(f domain.Flow) []eventstore.Write {
	return func(f domain.Flow) []eventstore.Write {
		if f.State != domain.FlowStateActive || f.Definition.Trigger.Type != domain.TriggerEvent {
			return []eventstore.Write{{SQL: `DELETE FROM agent_triggers WHERE flow_id=$1`, Args: []any{f.ID}}}
		}
		return []eventstore.Write{{SQL: `INSERT INTO agent_triggers AS t (flow_id, organization_id, event_type, active_since)
			VALUES ($1,$2,$3,$4) ON CONFLICT (flow_id) DO UPDATE SET event_type=EXCLUDED.event_type,
			active_since = CASE WHEN t.event_type = EXCLUDED.event_type THEN t.active_since ELSE EXCLUDED.active_since END`,
			Args: []any{f.ID, organizationID, f.Definition.Trigger.EventType, f.UpdatedAt}}}
	}
}

func flowAnswer(f *domain.Flow) domain.Flow { return *f }

// onFlow runs a decision on a flow's stream, keeping its trigger row.
func (h *Handlers) onFlow(ctx context.Context, m commands.Meta, id string, act func(f *domain.Flow) ([]event.Change, error),
	opts ...commands.Option) (commands.Result[domain.Flow], error) {
	if !validID(id) {
		return commands.Result[domain.Flow]{}, errs.NotFound("flow")
	}
	opts = append(opts, commands.Also(triggerWrites(m.OrganizationID)))
	res, err := commands.Execute(ctx, h.store, m, domain.StreamFlow, id, domain.LoadFlow, act, flowAnswer, opts...)
	return res, missing(err, domain.StreamFlow, "flow")
}
