package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// DefineMeter is billing.meters.upsert: a usage meter defined or changed.
type DefineMeter struct {
	MeterID       string  `json:"meterId"`
	MeterKey      string  `json:"meter_key"`
	AppID         *string `json:"app_id"`
	IncludedUnits int64   `json:"included_units"`
	Thresholds    []int   `json:"thresholds"`
}

func (h *Handlers) DefineMeter(ctx context.Context, m commands.Meta, in DefineMeter) (commands.Result[domain.Meters], error) {
	return run(ctx, h, m, domain.StreamMeters, domain.MetersStreamID(m.OrganizationID), domain.LoadMeters,
		func(ms *domain.Meters) ([]event.Change, error) {
			return ms.Define(domain.MeterInput{MeterID: in.MeterID, MeterKey: in.MeterKey, AppID: in.AppID,
				IncludedUnits: in.IncludedUnits, Thresholds: in.Thresholds}, h.now())
		}, metersModel)
}

func metersModel(m *domain.Meters) domain.Meters { return *m }
