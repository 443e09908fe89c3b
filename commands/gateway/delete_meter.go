package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// DeleteMeter is billing.meters.delete.
type DeleteMeter struct {
	MeterID string `json:"meterId"`
}

func (h *Handlers) DeleteMeter(ctx context.Context, m commands.Meta, in DeleteMeter) (commands.Result[domain.Meters], error) {
	return run(ctx, h, m, domain.StreamMeters, domain.MetersStreamID(m.OrganizationID), domain.LoadMeters,
		func(ms *domain.Meters) ([]event.Change, error) { return ms.Delete(in.MeterID, h.now()) }, metersModel)
}
