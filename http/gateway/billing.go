package gateway

import (
	"context"
	"net/http"
	"slices"

	"github.com/platform/backend/commands"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	gatewayview "github.com/platform/backend/projections/gateway"
)

// Answers of the billing actions.
type (
	SpendCaps struct {
		Caps []gatewayview.CapSpend `json:"caps"`
	}
	Meters struct {
		Meters []gatewayview.Meter `json:"meters"`
	}
	// MeterAnswer is a meter command's answer: the meter as defined, with
	// its consumption this period (absent after a delete).
	MeterAnswer struct {
		Meter  *gateway.MeterState `json:"meter"`
		Meters int                 `json:"meters"`
	}
)

const (
	scopeTypeSchema = `{"type":"string","enum":["organization","user"]}`
	capModeSchema   = `{"type":"string","enum":["soft","hard"]}`
	meterIDSchema   = `{"type":"string","maxLength":63,"pattern":"^[a-z0-9][a-z0-9._-]{0,62}$"}`
)

var (
	capEnums = []httpapi.OutputOption{httpapi.EnumOf("caps[].scopeType", gateway.ScopeOrganization, gateway.ScopeUser),
		httpapi.EnumOf("caps[].capMode", gateway.CapSoft, gateway.CapHard)}
	billingStateOut = open(gateway.BillingState{}, capEnums...)
	overviewOut     = open(gatewayview.BillingOverview{}, httpapi.EnumOf("caps[].scopeType", gateway.ScopeOrganization, gateway.ScopeUser),
		httpapi.EnumOf("caps[].capMode", gateway.CapSoft, gateway.CapHard))
	meterKeySchema = func() string {
		raw, _ := jsonEnum(gateway.MeterKeys)
		return raw
	}()
)

func billingArea(d Deps) Area {
	return Area{Actions: []httpapi.Action{
		httpapi.Query(httpapi.Action{
			Name: "billing.overview.get", Method: http.MethodGet, Path: "/api/billing/overview", Permission: "billing:read", ReadOnly: true,
			Summary: "Month-to-date spend per provider and app as charged and as re-rated with the current price table (and the difference), " +
				"the caps with their month-to-date spend, the BYOK service fee", ReadModel: gatewayview.Name, OutputSchema: overviewOut,
		}, func(ctx context.Context, p principal.Principal, _ Empty) (gatewayview.BillingOverview, error) {
			return d.Queries.Overview(ctx, p.OrganizationID, d.now())
		}),
		httpapi.Query(httpapi.Action{
			Name: "billing.spend_caps.list", Method: http.MethodGet, Path: "/api/billing/spend-caps", Permission: "billing:read", ReadOnly: true,
			Summary: "The organization's spend caps with their month-to-date spend", ReadModel: gatewayview.Name,
			OutputSchema: open(SpendCaps{}, capEnums...),
		}, func(ctx context.Context, p principal.Principal, _ Empty) (SpendCaps, error) {
			o, err := d.Queries.Overview(ctx, p.OrganizationID, d.now())
			return SpendCaps{Caps: o.Caps}, err
		}),
		httpapi.Command(httpapi.Action{
			Name: "billing.spend_caps.upsert", Method: http.MethodPost, Path: "/api/billing/spend-caps", Permission: "billing:write",
			Summary: "Set the spend cap of a scope (organization, or a user): a hard cap refuses calls that would pass it (402 " +
				"spend_cap_exceeded), a soft cap notifies at its notifyThresholds (percent). One cap per scope; answers every cap",
			OutputSchema: billingStateOut,
			InputSchema: withAllOf(httpapi.Object([]string{"scopeType", "monthlyCapCents"}, map[string]string{
				"scopeType": scopeTypeSchema, "scopeValue": httpapi.NullableLine(text.MaxID),
				"monthlyCapCents": `{"type":"number","minimum":0,"maximum":1e12}`, "capMode": capModeSchema, "isActive": booleanSchema,
				"notifyThresholds": `{"type":"array","maxItems":10,"items":{"type":"number","exclusiveMinimum":0,"maximum":1000}}`}),
				// A user cap names its user; an organization cap names nobody.
				`{"if":{"required":["scopeType"],"properties":{"scopeType":{"const":"user"}}},
					"then":{"required":["scopeValue"],"properties":{"scopeValue":{"not":{"type":"null"},"minLength":1}}}}`,
				`{"if":{"required":["scopeType"],"properties":{"scopeType":{"const":"organization"}}},
					"then":{"properties":{"scopeValue":{"type":"null"}}}}`),
		}, d.Commands.UpsertSpendCap),
		httpapi.Command(httpapi.Action{
			Name: "billing.spend_caps.delete", Method: http.MethodDelete, Path: "/api/billing/spend-caps/{id}", Permission: "billing:write",
			Destructive: true, Summary: "Remove a spend cap; answers the remaining caps", OutputSchema: billingStateOut,
			InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": httpapi.NonEmptyID}),
		}, d.Commands.DeleteSpendCap),
		httpapi.Command(httpapi.Action{
			Name: "billing.byok_fee.update", Method: http.MethodPost, Path: "/api/billing/byok-fee", Permission: "billing:write",
			Summary:      "Set the service fee (basis points of the rated cost) charged on calls that use the organization's own provider key",
			OutputSchema: billingStateOut,
			InputSchema:  httpapi.Object([]string{"serviceFeeBps"}, map[string]string{"serviceFeeBps": `{"type":"number","minimum":0,"maximum":10000}`}),
		}, d.Commands.UpdateByokFee),
		httpapi.Query(httpapi.Action{
			Name: "billing.meters.list", Method: http.MethodGet, Path: "/api/billing/meters", Permission: "billing:read", ReadOnly: true,
			Summary: "Usage meters with their consumption this month and the thresholds crossed", ReadModel: gatewayview.Name,
			OutputSchema: open(Meters{}),
		}, func(ctx context.Context, p principal.Principal, _ Empty) (Meters, error) {
			ms, err := d.Queries.Meters(ctx, p.OrganizationID, d.now())
			return Meters{Meters: ms}, err
		}),
		httpapi.Command(httpapi.Action{
			Name: "billing.meters.upsert", Method: http.MethodPut, Path: "/api/billing/meters/{meterId}", Permission: "billing:write",
			Summary: "Define or change a usage meter: what it counts (meter_key), of which app (app_id, null: every app), the units included " +
				"per month and the thresholds (percent) that notify gateway.usage.threshold_reached once per month each",
			OutputSchema: open(MeterAnswer{}),
			InputSchema: httpapi.Object([]string{"meterId", "meter_key", "included_units"}, map[string]string{
				"meterId": meterIDSchema, "meter_key": meterKeySchema, "app_id": httpapi.NullableLine(text.MaxID),
				"included_units": `{"type":"integer","minimum":1,"maximum":1000000000000000}`,
				"thresholds":     `{"type":"array","maxItems":10,"items":{"type":"integer","minimum":1,"maximum":1000}}`}),
		}, meterCommand(d, d.Commands.DefineMeter, func(in gatewaycmd.DefineMeter) string { return in.MeterID })),
		httpapi.Command(httpapi.Action{
			Name: "billing.meters.delete", Method: http.MethodDelete, Path: "/api/billing/meters/{meterId}", Permission: "billing:write",
			Destructive: true, Summary: "Remove a usage meter and its consumption", OutputSchema: open(MeterAnswer{}),
			InputSchema: httpapi.Object([]string{"meterId"}, map[string]string{"meterId": meterIDSchema}),
		}, meterCommand(d, d.Commands.DeleteMeter, func(in gatewaycmd.DeleteMeter) string { return in.MeterID })),
	}}
}

// meterCommand answers a meter command with the meter it names.
func meterCommand[In any](d Deps, f func(context.Context, commands.Meta, In) (commands.Result[gateway.Meters], error),
	id func(In) string) func(context.Context, commands.Meta, In) (commands.Result[MeterAnswer], error) {
	return func(ctx context.Context, m commands.Meta, in In) (commands.Result[MeterAnswer], error) {
		res, err := f(ctx, m, in)
		if err != nil {
			return commands.Result[MeterAnswer]{}, err
		}
		out := commands.Result[MeterAnswer]{Position: res.Position, Replayed: res.Replayed, Value: MeterAnswer{Meters: len(res.Value.Defined)}}
		states := res.Value.State(d.now())
		if i := slices.IndexFunc(states, func(s gateway.MeterState) bool { return s.MeterID == id(in) }); i >= 0 {
			out.Value.Meter = &states[i]
		}
		return out, nil
	}
}
