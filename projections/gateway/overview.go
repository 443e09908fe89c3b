package gateway

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
)

// BillingOverview is billing.overview.get: month-to-date spend per provider
// and per app, as charged (the usage events' cost, by the table of their
// time) and as rated with the current price table, with the difference; the
// caps with their month-to-date spend; the BYOK fee.
type BillingOverview struct {
	Month           string        `json:"month"`
	PriceVersion    string        `json:"price_version"`
	ChargedCents    float64       `json:"charged_cents"`
	RatedCents      float64       `json:"rated_cents"`
	DifferenceCents float64       `json:"difference_cents"`
	ServiceFeeBps   float64       `json:"service_fee_bps"`
	ServiceFeeCents float64       `json:"service_fee_cents"`
	Calls           int64         `json:"calls"`
	Providers       []SpendLine   `json:"providers"`
	Apps            []SpendLine   `json:"apps"`
	Caps            []CapSpend    `json:"caps"`
	Unpriced        []UnpricedUse `json:"unpriced"`
}

// SpendLine is one provider's or app's month to date.
type SpendLine struct {
	Key             string  `json:"key"`
	Calls           int64   `json:"calls"`
	ChargedCents    float64 `json:"charged_cents"`
	RatedCents      float64 `json:"rated_cents"`
	DifferenceCents float64 `json:"difference_cents"`
}

// CapSpend is a cap with its scope's month-to-date spend.
type CapSpend struct {
	domain.SpendCap
	MonthToDateCents float64 `json:"monthToDateCents"`
	ReservedCents    float64 `json:"reservedCents"`
	RemainingCents   float64 `json:"remainingCents"`
}

// UnpricedUse is usage the current table has no price for (a model dropped
// from it): shown, not silently rated at 0.
type UnpricedUse struct {
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Operation string `json:"operation"`
}

// Overview builds billing.overview.get for the month of now.
func (q *Queries) Overview(ctx context.Context, org string, now time.Time) (BillingOverview, error) {
	month := domain.Month(now)
	fee, err := q.ServiceFeeBps(ctx, org)
	if err != nil {
		return BillingOverview{}, err
	}
	o := BillingOverview{Month: month, PriceVersion: prices.Current.Version, ServiceFeeBps: fee, Providers: []SpendLine{}, Apps: []SpendLine{},
		Unpriced: []UnpricedUse{}}
	sql, err := q.sql(ctx, `SELECT provider, app_id, model, operation, byok, calls, input_tokens, output_tokens, characters, messages, audio_ms,
		images, unit_calls, cost_microcents, service_fee_microcents FROM {{gateway_billing_usage}} WHERE organization_id = $1 AND month = $2`)
	if err != nil {
		return o, err
	}
	rows, err := q.pool.Query(ctx, sql, org, month)
	if err != nil {
		return o, err
	}
	type line struct {
		provider, app, model, op string
		byok                     bool
		calls, cost, fee         int64
		units                    prices.Units
	}
	lines, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (line, error) {
		var l line
		u := &l.units
		err := r.Scan(&l.provider, &l.app, &l.model, &l.op, &l.byok, &l.calls, &u.InputTokens, &u.OutputTokens, &u.Characters, &u.Messages,
			&u.AudioMS, &u.Images, &u.Calls, &l.cost, &l.fee)
		return l, err
	})
	if err != nil {
		return o, err
	}
	providers, apps := map[string]*SpendLine{}, map[string]*SpendLine{}
	var charged, rated, fees int64
	for _, l := range lines {
		re := int64(0)
		if p, err := prices.Current.Lookup(l.provider, l.model, l.op); err == nil {
			re = domain.Rate(p, l.units, l.byok, fee).Cost
		} else {
			o.Unpriced = append(o.Unpriced, UnpricedUse{Provider: l.provider, Model: l.model, Operation: l.op})
		}
		charged, rated, fees = charged+l.cost, rated+re, fees+l.fee
		o.Calls += l.calls
		for _, agg := range []struct {
			m   map[string]*SpendLine
			key string
		}{{providers, l.provider}, {apps, l.app}} {
			s := agg.m[agg.key]
			if s == nil {
				s = &SpendLine{Key: agg.key}
				agg.m[agg.key] = s
			}
			s.Calls += l.calls
			s.ChargedCents += cents(l.cost)
			s.RatedCents += cents(re)
			s.DifferenceCents = s.RatedCents - s.ChargedCents
		}
	}
	o.ChargedCents, o.RatedCents, o.ServiceFeeCents = cents(charged), cents(rated), cents(fees)
	o.DifferenceCents = o.RatedCents - o.ChargedCents
	o.Providers, o.Apps = sorted(providers), sorted(apps)
	if o.Caps, err = q.capSpend(ctx, org, month); err != nil {
		return o, err
	}
	return o, nil
}

// capSpend reads each cap's month-to-date spend from the budgets the
// metered path keeps (the write side: exact, reservations included).
func (q *Queries) capSpend(ctx context.Context, org, month string) ([]CapSpend, error) {
	caps, err := q.SpendCaps(ctx, org)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, `SELECT scope, settled, reserved FROM gateway_budgets WHERE organization_id = $1 AND month = $2`, org, month)
	if err != nil {
		return nil, err
	}
	spent := map[string][2]int64{}
	for rows.Next() {
		var scope string
		var s, r int64
		if err := rows.Scan(&scope, &s, &r); err != nil {
			rows.Close()
			return nil, err
		}
		spent[scope] = [2]int64{s, r}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]CapSpend, 0, len(caps))
	for _, c := range caps {
		b := spent[c.Scope()]
		out = append(out, CapSpend{SpendCap: c, MonthToDateCents: cents(b[0]), ReservedCents: cents(b[1]),
			RemainingCents: max(0, c.MonthlyCapCents-cents(b[0])-cents(b[1]))})
	}
	return out, nil
}

func sorted(m map[string]*SpendLine) []SpendLine {
	out := make([]SpendLine, 0, len(m))
	for _, s := range m {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b SpendLine) int { return strings.Compare(a.Key, b.Key) })
	return out
}
