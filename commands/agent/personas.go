package agent

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/event"
)

// SavePersona creates or changes a persona of the organization's public
// assistant.
func (h *Handlers) SavePersona(ctx context.Context, m commands.Meta, in domain.PersonaInput) (commands.Result[domain.Persona], error) {
	now := h.now()
	return commands.Run(ctx, h.store, m, domain.StreamAssistant, domain.AssistantStreamID(m.OrganizationID), func(history []event.Recorded) ([]event.Change, domain.Persona, error) {
		a, err := domain.LoadAssistant(history)
		if err != nil {
			return nil, domain.Persona{}, err
		}
		return a.Save(in, now)
	})
}

// PersonaRef names a persona.
type PersonaRef struct {
	PersonaID string `json:"personaId"`
}

// Removed is the answer of a removal.
type Removed struct {
	ID      string `json:"id"`
	Removed bool   `json:"removed"`
}

// RemovePersona removes a persona.
func (h *Handlers) RemovePersona(ctx context.Context, m commands.Meta, in PersonaRef) (commands.Result[Removed], error) {
	now := h.now()
	return commands.Run(ctx, h.store, m, domain.StreamAssistant, domain.AssistantStreamID(m.OrganizationID), func(history []event.Recorded) ([]event.Change, Removed, error) {
		a, err := domain.LoadAssistant(history)
		if err != nil {
			return nil, Removed{}, err
		}
		changes, err := a.Remove(in.PersonaID, now)
		return changes, Removed{ID: in.PersonaID, Removed: true}, err
	})
}

// Personas are the organization's personas (the default one when it set
// up none), read from the write side.
func (h *Handlers) Personas(ctx context.Context, organizationID string) ([]domain.Persona, error) {
	a, err := h.assistant(ctx, organizationID)
	if err != nil {
		return nil, err
	}
	return a.Personas(), nil
}

func (h *Handlers) assistant(ctx context.Context, organizationID string) (*domain.Assistant, error) {
	history, err := h.store.Load(ctx, domain.AssistantStreamID(organizationID))
	if err != nil {
		return nil, err
	}
	return domain.LoadAssistant(commands.Recorded(history))
}
