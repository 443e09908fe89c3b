package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/projections"
)

// Queries reads the active generation of the gateway read model (and the
// budgets of the write side, for month-to-date spend against caps).
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader) *Queries {
	return &Queries{pool: pool, reader: reader}
}

func (q *Queries) sql(ctx context.Context, s string) (string, error) {
	return q.reader.SQL(ctx, Projection{}, s)
}

// Organization is organization.get's answer.
type Organization struct {
	OrganizationID string     `json:"organization_id"`
	Provisioned    bool       `json:"provisioned"`
	Name           *string    `json:"name"`
	Slug           *string    `json:"slug"`
	BillingEmail   *string    `json:"billing_email"`
	ProvisionedAt  *time.Time `json:"provisioned_at"`
	UpdatedAt      *time.Time `json:"updated_at"`
}

// Organization answers the caller's organization as the gateway knows it
// (provisioned false until the identity service provisioned it).
func (q *Queries) Organization(ctx context.Context, org string) (Organization, error) {
	sql, err := q.sql(ctx, `SELECT name, slug, billing_email, provisioned_at, updated_at FROM {{gateway_organizations}} WHERE organization_id = $1`)
	if err != nil {
		return Organization{}, err
	}
	o := Organization{OrganizationID: org}
	err = q.pool.QueryRow(ctx, sql, org).Scan(&o.Name, &o.Slug, &o.BillingEmail, &o.ProvisionedAt, &o.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, nil
	}
	o.Provisioned = err == nil
	return o, err
}

// UsageEvent is one attempt as usage.events.list shows it.
type UsageEvent struct {
	EventID           string       `json:"event_id"`
	RequestID         string       `json:"request_id"`
	OccurredAt        time.Time    `json:"occurred_at"`
	EventType         string       `json:"event_type"`
	Severity          string       `json:"severity"`
	Outcome           string       `json:"outcome"`
	Provider          string       `json:"provider"`
	Model             string       `json:"model"`
	Operation         string       `json:"operation"`
	AppID             string       `json:"app_id"`
	UseCase           string       `json:"use_case"`
	PrincipalID       string       `json:"principal_id"`
	PrincipalType     string       `json:"principal_type"`
	ConnectionID      string       `json:"connection_id"`
	BYOK              bool         `json:"byok"`
	Units             prices.Units `json:"units"`
	Estimated         bool         `json:"estimated"`
	LatencyMS         int64        `json:"latency_ms"`
	CostCents         float64      `json:"cost_cents"`
	ServiceFeeCents   float64      `json:"service_fee_cents"`
	PriceVersion      string       `json:"price_version"`
	Error             string       `json:"error"`
	ProviderRequestID string       `json:"provider_request_id"`
}

// UsageFilter selects usage events: newest first.
type UsageFilter struct {
	EventType string
	Severity  string
	Since     *time.Time
	Limit     int
}

func (q *Queries) UsageEvents(ctx context.Context, org string, f UsageFilter) ([]UsageEvent, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	sql, err := q.sql(ctx, `SELECT event_id::text, request_id, occurred_at, event_type, severity, outcome, provider, model, operation, app_id,
		use_case, principal_id, principal_type, connection_id, byok, units, estimated, latency_ms, cost_microcents, service_fee_microcents,
		price_version, error, provider_request_id FROM {{gateway_usage_events}}
		WHERE organization_id = $1 AND ($2 = '' OR event_type = $2) AND ($3 = '' OR severity = $3) AND ($4::timestamptz IS NULL OR occurred_at >= $4)
		ORDER BY occurred_at DESC, event_id DESC LIMIT $5`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, f.EventType, f.Severity, f.Since, f.Limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (UsageEvent, error) {
		var u UsageEvent
		var units []byte
		var cost, fee int64
		err := r.Scan(&u.EventID, &u.RequestID, &u.OccurredAt, &u.EventType, &u.Severity, &u.Outcome, &u.Provider, &u.Model, &u.Operation,
			&u.AppID, &u.UseCase, &u.PrincipalID, &u.PrincipalType, &u.ConnectionID, &u.BYOK, &units, &u.Estimated, &u.LatencyMS, &cost, &fee,
			&u.PriceVersion, &u.Error, &u.ProviderRequestID)
		if err == nil {
			err = json.Unmarshal(units, &u.Units)
		}
		u.CostCents, u.ServiceFeeCents = cents(cost), cents(fee)
		return u, err
	})
}

// DailySnapshot is one day of usage.snapshots.daily.
type DailySnapshot struct {
	Day          string  `json:"day"`
	Calls        int64   `json:"calls"`
	Failures     int64   `json:"failures"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostCents    float64 `json:"cost_cents"`
}

// Daily lists the last days (today included, oldest first), zeros where
// nothing happened.
func (q *Queries) Daily(ctx context.Context, org string, days int, now time.Time) ([]DailySnapshot, error) {
	sql, err := q.sql(ctx, `SELECT d::date::text, COALESCE(u.calls, 0), COALESCE(u.failures, 0), COALESCE(u.input_tokens, 0),
		COALESCE(u.output_tokens, 0), COALESCE(u.cost_microcents, 0)
		FROM generate_series($2::date - ($3::int - 1), $2::date, interval '1 day') AS d
		LEFT JOIN {{gateway_usage_daily}} u ON u.organization_id = $1 AND u.day = d::date ORDER BY d`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, now.UTC().Format(time.DateOnly), days)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DailySnapshot, error) {
		var s DailySnapshot
		var cost int64
		err := r.Scan(&s.Day, &s.Calls, &s.Failures, &s.InputTokens, &s.OutputTokens, &cost)
		s.CostCents = cents(cost)
		return s, err
	})
}

// KeyHealth is one connection of usage.key_health.get.
type KeyHealth struct {
	Provider      string     `json:"provider"`
	ConnectionID  string     `json:"connection_id"`
	Status        string     `json:"status"`
	Successes     int64      `json:"successes"`
	Failures      int64      `json:"failures"`
	FailureRate   float64    `json:"failure_rate"`
	LastSuccessAt *time.Time `json:"last_success_at"`
	LastFailureAt *time.Time `json:"last_failure_at"`
	LastError     string     `json:"last_error"`
	LastLatencyMS int64      `json:"last_latency_ms"`
}

func (q *Queries) KeyHealth(ctx context.Context, org string) ([]KeyHealth, error) {
	sql, err := q.sql(ctx, `SELECT provider, connection_id, status, successes, failures, last_success_at, last_failure_at, last_error,
		last_latency_ms FROM {{gateway_key_health}} WHERE organization_id = $1 ORDER BY provider, connection_id`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (KeyHealth, error) {
		var k KeyHealth
		err := r.Scan(&k.Provider, &k.ConnectionID, &k.Status, &k.Successes, &k.Failures, &k.LastSuccessAt, &k.LastFailureAt, &k.LastError, &k.LastLatencyMS)
		if total := k.Successes + k.Failures; total > 0 {
			k.FailureRate = float64(k.Failures) / float64(total)
		}
		return k, err
	})
}

// SpendCaps lists the organization's caps.
func (q *Queries) SpendCaps(ctx context.Context, org string) ([]domain.SpendCap, error) {
	sql, err := q.sql(ctx, `SELECT cap FROM {{gateway_spend_caps}} WHERE organization_id = $1 ORDER BY scope`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.SpendCap, error) {
		var raw []byte
		var c domain.SpendCap
		if err := r.Scan(&raw); err != nil {
			return c, err
		}
		err := json.Unmarshal(raw, &c)
		if c.NotifyThresholds == nil {
			c.NotifyThresholds = []float64{}
		}
		return c, err
	})
}

// ServiceFeeBps is the organization's BYOK fee (0 when never set).
func (q *Queries) ServiceFeeBps(ctx context.Context, org string) (float64, error) {
	sql, err := q.sql(ctx, `SELECT service_fee_bps FROM {{gateway_settings}} WHERE organization_id = $1`)
	if err != nil {
		return 0, err
	}
	var bps float64
	err = q.pool.QueryRow(ctx, sql, org).Scan(&bps)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return bps, err
}

// Meter is one meter of billing.meters.list.
type Meter struct {
	MeterID           string    `json:"meter_id"`
	MeterKey          string    `json:"meter_key"`
	AppID             *string   `json:"app_id"`
	IncludedUnits     int64     `json:"included_units"`
	ConsumedUnits     int64     `json:"consumed_units"`
	Thresholds        []int     `json:"thresholds"`
	CrossedThresholds []int     `json:"crossed_thresholds"`
	PeriodStart       int64     `json:"period_start"`
	UpdatedAt         time.Time `json:"updated_at"`
}

// Meters lists the organization's meters; a meter whose last consumption is
// of an earlier month shows the current month at zero.
func (q *Queries) Meters(ctx context.Context, org string, now time.Time) ([]Meter, error) {
	sql, err := q.sql(ctx, `SELECT meter_id, meter_key, app_id, included_units, consumed_units, thresholds, crossed, period_start, updated_at
		FROM {{gateway_meters}} WHERE organization_id = $1 ORDER BY meter_id`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org)
	if err != nil {
		return nil, err
	}
	period := domain.MonthStart(now).Unix()
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Meter, error) {
		var m Meter
		var thresholds, crossed []int32
		err := r.Scan(&m.MeterID, &m.MeterKey, &m.AppID, &m.IncludedUnits, &m.ConsumedUnits, &thresholds, &crossed, &m.PeriodStart, &m.UpdatedAt)
		m.Thresholds, m.CrossedThresholds = ints(thresholds), ints(crossed)
		if m.PeriodStart < period {
			m.ConsumedUnits, m.CrossedThresholds, m.PeriodStart = 0, []int{}, period
		}
		slices.Sort(m.CrossedThresholds)
		return m, err
	})
}

// AuditEntry is one row of audit.list.
type AuditEntry struct {
	EventID    string          `json:"event_id"`
	EventType  string          `json:"event_type"`
	ActorID    string          `json:"actor_id"`
	ActorType  string          `json:"actor_type"`
	OccurredAt time.Time       `json:"occurred_at"`
	Details    json.RawMessage `json:"details"`
}

func (q *Queries) Audit(ctx context.Context, org string, limit int) ([]AuditEntry, error) {
	sql, err := q.sql(ctx, `SELECT event_id::text, event_type, actor_id, actor_type, occurred_at, details FROM {{gateway_audit}}
		WHERE organization_id = $1 ORDER BY occurred_at DESC, event_id DESC LIMIT $2`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (AuditEntry, error) {
		var a AuditEntry
		var details []byte
		err := r.Scan(&a.EventID, &a.EventType, &a.ActorID, &a.ActorType, &a.OccurredAt, &details)
		a.Details = json.RawMessage(details)
		return a, err
	})
}

func cents(microcents int64) float64 { return float64(microcents) / 1e6 }

func ints(xs []int32) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}
