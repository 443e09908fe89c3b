// Package gateway maps the usage gateway's events to seed 001's eight
// gateway contracts. The mapping is per-area tables merged (health and
// meters here; connections, credentials, deliveries and webhooks add theirs),
// and every key is deterministic from the event, so a redelivery, a crash
// between event and notification, or a full replay emits each key once (the
// delivery log's unique key).
package gateway

import (
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications"
)

// Mapping is the gateway's notification mapping; dashboardURL is where
// each notification's cta_url points (the gateway's dashboard).
func Mapping(dashboardURL string) notifications.Mapping {
	m := notifications.Mapping{}
	for _, area := range []notifications.Mapping{healthMapping(dashboardURL), meterMapping(dashboardURL), edgeMapping(dashboardURL), silent} {
		maps.Copy(m, area)
	}
	// Every other gateway event type emits nothing: declared, so the
	// invariant test sees each type handled or silent.
	for _, t := range domain.EventTypes {
		if _, ok := m[t]; !ok {
			m[t] = notifications.Silent
		}
	}
	return m
}

// SilentStreams are the gateway's stream types none of whose events emits a
// notification: one-call usage streams hold only their usage.recorded event
// (the settle's or the sweeper's), which is silent. The notification
// projector passes over them (a test checks the type stays silent).
var SilentStreams = []string{domain.StreamUsage}

// silent lists types that are not contract events (records, configuration).
var silent = notifications.Mapping{
	domain.UsageRecorded:           notifications.Silent,
	domain.SpendCapUpserted:        notifications.Silent,
	domain.SpendCapDeleted:         notifications.Silent,
	domain.ByokFeeUpdated:          notifications.Silent,
	domain.MeterDefined:            notifications.Silent,
	domain.MeterDeleted:            notifications.Silent,
	domain.MeterConsumed:           notifications.Silent,
	domain.OrganizationProvisioned: notifications.Silent,
	domain.OrganizationUpdated:     notifications.Silent,
}

func healthMapping(dashboard string) notifications.Mapping {
	health := func(e eventstore.Event, p domain.ProviderHealthV1) ([]notifications.Notification, error) {
		title, body := p.Provider+" degraded", fmt.Sprintf("Calls to %s are failing (%s, %d ms).", p.Provider, p.Error, p.LatencyMS)
		if e.Type == domain.ProviderRecovered {
			title, body = p.Provider+" recovered", fmt.Sprintf("Calls to %s succeed again (%d ms).", p.Provider, p.LatencyMS)
		}
		key := fmt.Sprintf("gateway:provider-health:%s:%s:v%d", e.OrganizationID, p.Provider, e.StreamVersion)
		return notifications.One(e.Type, key, map[string]any{
			"title": title, "body": body, "object_id": p.Provider, "occurred_at": notifications.Timestamp(p.At),
			"cta_url": link(dashboard, "/usage/key-health"), "provider": p.Provider, "status": p.Status, "error": p.Error,
			"latency_ms": p.LatencyMS,
		}), nil
	}
	return notifications.Mapping{
		domain.ProviderDegraded:  notifications.MapAs(health),
		domain.ProviderRecovered: notifications.MapAs(health),
	}
}

func meterMapping(dashboard string) notifications.Mapping {
	return notifications.Mapping{
		domain.MeterThresholdCrossed: notifications.MapAs(func(e eventstore.Event, p domain.MeterThresholdCrossedV1) ([]notifications.Notification, error) {
			key := fmt.Sprintf("gateway:usage-threshold:%s:%s:%d:%d", e.OrganizationID, p.MeterID, p.PeriodStart, p.ThresholdPercentage)
			return notifications.One(usageThresholdReached, key, map[string]any{
				"title":     fmt.Sprintf("%s reached %d%%", p.MeterKey, p.ThresholdPercentage),
				"body":      thresholdBody(p),
				"object_id": p.MeterID, "occurred_at": notifications.Timestamp(p.OccurredAt), "cta_url": link(dashboard, "/billing/meters"),
				"app_id": p.AppID, "meter_id": p.MeterID, "meter_key": p.MeterKey, "consumed_units": p.ConsumedUnits,
				"included_units": p.IncludedUnits, "threshold_percentage": p.ThresholdPercentage, "period_start": p.PeriodStart,
			}), nil
		}),
	}
}

// thresholdBody says what was used of what: a spend meter's micro-cents as
// exact cents (0.95 of 1.9 cents), other meters' units as counted.
func thresholdBody(p domain.MeterThresholdCrossedV1) string {
	if p.Unit == domain.UnitMicrocents {
		return fmt.Sprintf("%s of the %s cents of the %s soft cap spent this period (%d of %d micro-cents).",
			centsText(p.ConsumedUnits), centsText(p.IncludedUnits), strings.TrimPrefix(p.MeterKey, domain.KeySpendPrefix),
			p.ConsumedUnits, p.IncludedUnits)
	}
	return fmt.Sprintf("%d of %d included units of %s used this period.", p.ConsumedUnits, p.IncludedUnits, p.MeterKey)
}

// centsText writes micro-cents as cents without rounding (1900000 -> 1.9).
func centsText(microcents int64) string {
	s := strconv.FormatInt(microcents/1_000_000, 10)
	if frac := microcents % 1_000_000; frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	}
	return s
}

// link joins the dashboard's base URL and a path.
func link(base, path string) string {
	u, err := url.JoinPath(base, path)
	if err != nil {
		return base
	}
	return u
}

// usageThresholdReached is the contract a meter's crossing emits (seed 001).
const usageThresholdReached = "gateway.usage.threshold_reached"
