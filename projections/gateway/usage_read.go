package gateway

import (
	"cmp"
	"slices"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/eventstore"
)

// decodeUsage reads a usage event's payload as the event store gives it
// (PostgreSQL's text of the jsonb column, the relay's payload::text) member
// by member (readUsage), else by eventstore.Decode. The usage event is one a
// metered call, and its decoding by reflection was the read model's largest
// cost a call after its statements (~7 µs of a completion's Go,
// bench/README.md "gwcons").
func decodeUsage(e eventstore.Event) (domain.UsageRecordedV1, error) {
	if p, ok := readUsage(e.Payload); ok {
		return p, nil
	}
	return eventstore.Decode[domain.UsageRecordedV1](e)
}

// readUsage reads b laid out as jsonb's text is: the members of
// UsageRecordedV1 (the omitempty ones present or not) in jsonb's key order,
// ", " and ": " between them, strings of printable ASCII without escapes;
// ok is false for anything else, which json.Unmarshal then reads. Where it
// reads, it gives what json.Unmarshal gives (TestDecodeUsageIsUnmarshal,
// FuzzReadUsage); a member added to the struct and not to usageMembers makes
// the layout a surprise, never a member dropped (TestReadUsageReadsJSONBText
// fails until it is read).
func readUsage(b []byte) (p domain.UsageRecordedV1, ok bool) {
	r := eventstore.NewLayout(b)
	readObject(r, usageMembers, &p)
	if !r.Done() {
		return domain.UsageRecordedV1{}, false
	}
	return p, true
}

// member is one member of an object laid out as jsonb's text: its key as
// the first member's and as a later one's, and how its value is read.
type member[T any] struct {
	name        string
	first, next string // `"name": `, `, "name": `
	omitEmpty   bool   // absent when empty (json's omitempty)
	read        func(*eventstore.Layout, *T)
}

// jsonbOrder is members in jsonb's key order (shorter keys first, keys of a
// length bytewise), their keys made.
func jsonbOrder[T any](ms []member[T]) []member[T] {
	for i := range ms {
		ms[i].first = `"` + ms[i].name + `": `
		ms[i].next = `, ` + ms[i].first
	}
	slices.SortFunc(ms, func(a, b member[T]) int {
		return cmp.Or(cmp.Compare(len(a.name), len(b.name)), cmp.Compare(a.name, b.name))
	})
	return ms
}

func readObject[T any](r *eventstore.Layout, ms []member[T], v *T) {
	r.Lit(`{`)
	first := true
	for _, m := range ms {
		key := m.next
		if first {
			key = m.first
		}
		if m.omitEmpty && !r.Has(key) {
			continue
		}
		r.Lit(key)
		m.read(r, v)
		first = false
	}
	r.Lit(`}`)
}

type usage = domain.UsageRecordedV1

var usageMembers = jsonbOrder([]member[usage]{
	{name: "request_id", read: func(r *eventstore.Layout, p *usage) { p.RequestID = r.Str() }},
	{name: "principal_id", read: func(r *eventstore.Layout, p *usage) { p.PrincipalID = r.Str() }},
	{name: "principal_type", read: func(r *eventstore.Layout, p *usage) { p.PrincipalType = r.Str() }},
	{name: "user_id", omitEmpty: true, read: func(r *eventstore.Layout, p *usage) { p.UserID = r.Str() }},
	{name: "app_id", read: func(r *eventstore.Layout, p *usage) { p.AppID = r.Str() }},
	{name: "use_case", read: func(r *eventstore.Layout, p *usage) { p.UseCase = r.Str() }},
	{name: "action", read: func(r *eventstore.Layout, p *usage) { p.Action = r.Str() }},
	{name: "provider", read: func(r *eventstore.Layout, p *usage) { p.Provider = r.Str() }},
	{name: "model", read: func(r *eventstore.Layout, p *usage) { p.Model = r.Str() }},
	{name: "operation", read: func(r *eventstore.Layout, p *usage) { p.Operation = r.Str() }},
	{name: "connection_id", read: func(r *eventstore.Layout, p *usage) { p.ConnectionID = r.Str() }},
	{name: "byok", read: func(r *eventstore.Layout, p *usage) { p.BYOK = r.Bool() }},
	{name: "units", read: func(r *eventstore.Layout, p *usage) { readObject(r, unitsMembers, &p.Units) }},
	{name: "estimated", read: func(r *eventstore.Layout, p *usage) { p.Estimated = r.Bool() }},
	{name: "latency_ms", read: func(r *eventstore.Layout, p *usage) { p.LatencyMS = r.Int() }},
	{name: "outcome", read: func(r *eventstore.Layout, p *usage) { p.Outcome = r.Str() }},
	{name: "error", omitEmpty: true, read: func(r *eventstore.Layout, p *usage) { p.Error = r.Str() }},
	{name: "provider_request_id", omitEmpty: true, read: func(r *eventstore.Layout, p *usage) { p.ProviderRequestID = r.Str() }},
	{name: "provider_cost_microcents", read: func(r *eventstore.Layout, p *usage) { p.ProviderCost = r.Int() }},
	{name: "service_fee_microcents", read: func(r *eventstore.Layout, p *usage) { p.ServiceFee = r.Int() }},
	{name: "cost_microcents", read: func(r *eventstore.Layout, p *usage) { p.Cost = r.Int() }},
	{name: "reserved_microcents", read: func(r *eventstore.Layout, p *usage) { p.Reserved = r.Int() }},
	{name: "price_version", read: func(r *eventstore.Layout, p *usage) { p.PriceVersion = r.Str() }},
	{name: "month", read: func(r *eventstore.Layout, p *usage) { p.Month = r.Str() }},
	{name: "occurred_at", read: func(r *eventstore.Layout, p *usage) { p.OccurredAt = r.Time() }},
})

var unitsMembers = jsonbOrder([]member[prices.Units]{
	{name: "input_tokens", read: func(r *eventstore.Layout, u *prices.Units) { u.InputTokens = r.Int() }},
	{name: "output_tokens", read: func(r *eventstore.Layout, u *prices.Units) { u.OutputTokens = r.Int() }},
	{name: "characters", read: func(r *eventstore.Layout, u *prices.Units) { u.Characters = r.Int() }},
	{name: "messages", read: func(r *eventstore.Layout, u *prices.Units) { u.Messages = r.Int() }},
	{name: "audio_ms", read: func(r *eventstore.Layout, u *prices.Units) { u.AudioMS = r.Int() }},
	{name: "images", read: func(r *eventstore.Layout, u *prices.Units) { u.Images = r.Int() }},
	{name: "calls", read: func(r *eventstore.Layout, u *prices.Units) { u.Calls = r.Int() }},
})
