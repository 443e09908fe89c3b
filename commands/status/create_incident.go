package status

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
)

// CreateIncident is incidents.create.
type CreateIncident struct {
	Title         string  `json:"title"`
	Message       string  `json:"message"`
	Severity      string  `json:"severity"`
	ComponentHost *string `json:"componentHost"`
	ComponentName *string `json:"componentName"`
}

func (h *Handlers) CreateIncident(ctx context.Context, m commands.Meta, in CreateIncident) (commands.Result[domain.IncidentState], error) {
	id := uuid.Must(uuid.NewV7()).String()
	return run(ctx, h, m, domain.StreamIncident, id,
		domain.LoadIncident, func(inc *domain.Incident) ([]event.Change, error) {
			return inc.Create(domain.NewIncident{ID: id, Title: in.Title, Message: in.Message, Severity: in.Severity,
				ComponentHost: in.ComponentHost, ComponentName: in.ComponentName}, h.now())
		}, (*domain.Incident).State)
}
