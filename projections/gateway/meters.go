package gateway

import (
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// meterArea: the organization's meters with their consumption in the
// current period and the thresholds crossed in it.
var meterArea = area{
	tables: []string{"gateway_meters"},
	schema: []string{
		`CREATE TABLE IF NOT EXISTS {{gateway_meters}} (
			organization_id text NOT NULL, meter_id text NOT NULL, meter_key text NOT NULL, app_id text,
			included_units bigint NOT NULL, thresholds int[] NOT NULL, consumed_units bigint NOT NULL, period_start bigint NOT NULL,
			crossed int[] NOT NULL, updated_at timestamptz NOT NULL, PRIMARY KEY (organization_id, meter_id)) WITH (fillfactor = 70)`,
	},
	reducers: ignored(projections.Reducers{
		domain.MeterDefined: projections.On(func(e eventstore.Event, p domain.MeterDefinedV1) ([]projections.Statement, error) {
			return []projections.Statement{projections.Exec(`INSERT INTO {{gateway_meters}} (organization_id, meter_id, meter_key, app_id,
				included_units, thresholds, consumed_units, period_start, crossed, updated_at) VALUES ($1,$2,$3,$4,$5,$6,0,0,'{}',$7)
				ON CONFLICT (organization_id, meter_id) DO UPDATE SET meter_key = EXCLUDED.meter_key, app_id = EXCLUDED.app_id,
				included_units = EXCLUDED.included_units, thresholds = EXCLUDED.thresholds, updated_at = EXCLUDED.updated_at`,
				e.OrganizationID, p.MeterID, p.MeterKey, p.AppID, p.IncludedUnits, p.Thresholds, p.At)}, nil
		}),
		domain.MeterDeleted: projections.On(func(e eventstore.Event, p domain.MeterDeletedV1) ([]projections.Statement, error) {
			return []projections.Statement{projections.Exec(`DELETE FROM {{gateway_meters}} WHERE organization_id = $1 AND meter_id = $2`,
				e.OrganizationID, p.MeterID)}, nil
		}),
		// Consumption of a newer period starts the counter anew; soft caps'
		// meters (not defined here) update no row.
		domain.MeterConsumed: projections.On(func(e eventstore.Event, p domain.MeterConsumedV1) ([]projections.Statement, error) {
			var out []projections.Statement
			for id, d := range p.Deltas {
				out = append(out, projections.Exec(`UPDATE {{gateway_meters}} SET
					consumed_units = CASE WHEN period_start = $3 THEN consumed_units + $4 WHEN period_start < $3 THEN $4 ELSE consumed_units END,
					crossed = CASE WHEN period_start < $3 THEN '{}' ELSE crossed END,
					period_start = GREATEST(period_start, $3), updated_at = $5
					WHERE organization_id = $1 AND meter_id = $2`, e.OrganizationID, id, p.PeriodStart, d, e.OccurredAt))
			}
			return out, nil
		}),
		domain.MeterThresholdCrossed: projections.On(func(e eventstore.Event, p domain.MeterThresholdCrossedV1) ([]projections.Statement, error) {
			return []projections.Statement{projections.Exec(`UPDATE {{gateway_meters}} SET crossed = array_append(crossed, $3)
				WHERE organization_id = $1 AND meter_id = $2 AND period_start = $4 AND NOT ($3 = ANY (crossed))`,
				e.OrganizationID, p.MeterID, p.ThresholdPercentage, p.PeriodStart)}, nil
		}),
	}),
}
