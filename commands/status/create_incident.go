package status

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
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
	return h.createIncident(ctx, m, uuid.Must(uuid.NewV7()).String(), domain.NewIncident{Title: in.Title, Message: in.Message,
		Severity: in.Severity, ComponentHost: in.ComponentHost, ComponentName: in.ComponentName})
}
