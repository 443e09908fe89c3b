package status

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
)

// RecordCheck records one poll of a component (issued by status.poll and by
// the periodic poller).
type RecordCheck struct {
	ComponentID string
	HTTPStatus  int    // 0: no response
	Error       string // transport error, if any
}

func (h *Handlers) RecordCheck(ctx context.Context, m commands.Meta, in RecordCheck) (commands.Result[domain.ComponentState], error) {
	return run(ctx, h, m, domain.StreamComponent, ComponentStreamID(m.OrganizationID, in.ComponentID),
		domain.LoadComponent, func(c *domain.Component) ([]event.Change, error) {
			return c.RecordCheck(in.HTTPStatus, in.Error, h.now())
		}, (*domain.Component).State)
}
