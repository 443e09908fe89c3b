package status

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/status"
)

// UpdateIncident is incidents.update; status "resolved" resolves.
type UpdateIncident struct {
	IncidentID string `json:"incidentId"`
	Status     string `json:"status"`
	Message    string `json:"message"`
	Severity   string `json:"severity"`
	Title      string `json:"title"`
}

func (h *Handlers) UpdateIncident(ctx context.Context, m commands.Meta, in UpdateIncident) (commands.Result[domain.IncidentState], error) {
	return h.updateIncident(ctx, m, in.IncidentID,
		domain.IncidentUpdate{Status: in.Status, Message: in.Message, Severity: in.Severity, Title: in.Title})
}
