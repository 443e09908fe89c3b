package agent

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// CreateFlow is flows.create's input.
type CreateFlow struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Trigger     TriggerInput `json:"trigger"`
	Steps       []StepInput  `json:"steps"`
}

// CreateFlow saves a new flow, active, owned by its saver: its steps run
// with a credential the saver delegates, never more than the saver holds.
func (h *Handlers) CreateFlow(ctx context.Context, m commands.Meta, p principal.Principal, in CreateFlow) (commands.Result[domain.Flow], error) {
	owner, err := ownerOf(p)
	if err != nil {
		return commands.Result[domain.Flow]{}, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	d, err := h.resolve(ctx, m, p, id, "flow.create", definitionOf(in.Name, in.Description, in.Trigger, in.Steps))
	if err != nil {
		return commands.Result[domain.Flow]{}, err
	}
	now := h.now()
	return h.onFlow(ctx, m, id, func(f *domain.Flow) ([]event.Change, error) { return f.Create(id, d, owner, now) })
}
