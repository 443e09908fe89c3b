package agent

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// UpdateFlow is flows.update's input: the members it names replace the
// flow's (steps as a whole).
type UpdateFlow struct {
	FlowID      string        `json:"flowId"`
	Name        *string       `json:"name"`
	Description *string       `json:"description"`
	Trigger     *TriggerInput `json:"trigger"`
	Steps       []StepInput   `json:"steps"`
}

// UpdateFlow saves a new version of a flow; its saver becomes its owner
// (the steps act for whoever last decided what they do). Runs under way
// keep the version they started with.
func (h *Handlers) UpdateFlow(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateFlow) (commands.Result[domain.Flow], error) {
	owner, err := ownerOf(p)
	if err != nil {
		return commands.Result[domain.Flow]{}, err
	}
	cur, err := h.Flow(ctx, m.OrganizationID, in.FlowID)
	if err != nil {
		return commands.Result[domain.Flow]{}, err
	}
	d := cur.Definition
	if in.Name != nil {
		d.Name = *in.Name
	}
	if in.Description != nil {
		d.Description = *in.Description
	}
	if in.Trigger != nil {
		d.Trigger = definitionOf("", "", *in.Trigger, nil).Trigger
	}
	if in.Steps != nil {
		d.Steps = definitionOf("", "", TriggerInput{}, in.Steps).Steps
	} else {
		// Steps kept as they are are bound again: their descriptors may
		// have changed, and the new owner's permissions are checked.
		for i := range d.Steps {
			d.Steps[i].Call = nil
		}
	}
	d, err = h.resolve(ctx, m, p, in.FlowID, "flow.update", d)
	if err != nil {
		return commands.Result[domain.Flow]{}, err
	}
	now := h.now()
	return h.onFlow(ctx, m, in.FlowID, func(f *domain.Flow) ([]event.Change, error) { return f.Update(d, owner, now) })
}

// Flow reads a flow of the organization from the write side.
func (h *Handlers) Flow(ctx context.Context, organizationID, id string) (*domain.Flow, error) {
	if !validID(id) {
		return nil, errNoFlow
	}
	history, err := h.loadStream(ctx, organizationID, id, "flow")
	if err != nil {
		return nil, err
	}
	f, err := domain.LoadFlow(history)
	if err != nil {
		return nil, err
	}
	if !f.Exists() {
		return nil, errNoFlow
	}
	return f, nil
}
