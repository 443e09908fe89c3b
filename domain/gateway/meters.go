package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// StreamMeters holds an organization's usage meters and their consumption:
// one stream per organization (MetersStreamID), so its lock serializes every
// consumption of the organization's meters and a crossing is decided once.
const StreamMeters = "gateway.meters"

// Meter event types.
const (
	MeterDefined          = "gateway.meter.defined"
	MeterDeleted          = "gateway.meter.deleted"
	MeterConsumed         = "gateway.meter.consumed"
	MeterThresholdCrossed = "gateway.meter.threshold_crossed"
)

// MeterEventTypes are the meter area's event types.
var MeterEventTypes = []string{MeterDefined, MeterDeleted, MeterConsumed, MeterThresholdCrossed}

// MetersStreamID is the meters stream of an organization.
func MetersStreamID(org string) string { return "meters:" + org }

// Meter keys: what a meter counts of each usage event.
const (
	KeyAITokens       = "ai.tokens" // input and output tokens
	KeyAIInputTokens  = "ai.input_tokens"
	KeyAIOutputTokens = "ai.output_tokens"
	KeyAIRequests     = "ai.requests" // successful AI calls
	KeyAICharacters   = "ai.characters"
	KeyAIAudioSeconds = "ai.audio_seconds"
	KeyAIImages       = "ai.images"
	KeyEmailMessages  = "email.messages"
	KeyIMMessages     = "message.messages"
	KeyPaymentsCalls  = "payments.calls"
	// KeySpendPrefix: a soft cap's notifyThresholds are a meter of the cap's
	// scope in cents ("spend.organization", "spend.user:<id>").
	KeySpendPrefix = "spend."
)

// MeterKeys are the keys a client may define a meter on.
var MeterKeys = []string{KeyAITokens, KeyAIInputTokens, KeyAIOutputTokens, KeyAIRequests, KeyAICharacters, KeyAIAudioSeconds,
	KeyAIImages, KeyEmailMessages, KeyIMMessages, KeyPaymentsCalls}

// Bounds of meters.
const (
	MaxIncludedUnits = 1e15
	MaxMeters        = 100
	// DefaultThresholds notify at half, most and all of the included units.
	defaultThreshold1, defaultThreshold2, defaultThreshold3 = 50, 80, 100
)

// MeterIDPattern: meter ids are client-chosen, like component ids.
var MeterIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// MeterDefinedV1 is a meter as defined, whole (define and update).
type MeterDefinedV1 struct {
	MeterID       string    `json:"meter_id"`
	MeterKey      string    `json:"meter_key"`
	AppID         *string   `json:"app_id"`
	IncludedUnits int64     `json:"included_units"`
	Thresholds    []int     `json:"thresholds"`
	At            time.Time `json:"at"`
}

// MeterDeletedV1 names a removed meter.
type MeterDeletedV1 struct {
	MeterID string    `json:"meter_id"`
	At      time.Time `json:"at"`
}

// MeterConsumedV1 is one usage event counted by the organization's meters:
// the units each meter took (raw units; micro-cents for spend meters).
type MeterConsumedV1 struct {
	UsageEventID string           `json:"usage_event_id"`
	PeriodStart  int64            `json:"period_start"`
	Deltas       map[string]int64 `json:"deltas"`
}

// MeterThresholdCrossedV1 is a meter passing one of its thresholds in a
// period: previous < threshold <= consumed, exactly (consumed x 100 >=
// threshold x included). Units are the meter's raw units: tokens, messages,
// ...; micro-cents for soft caps' spend meters (Unit), whose included units
// are the cap in micro-cents. Crossings recorded before Unit existed counted
// spend meters in whole cents (the cap floored), and say no unit.
type MeterThresholdCrossedV1 struct {
	MeterID             string    `json:"meter_id"`
	MeterKey            string    `json:"meter_key"`
	AppID               string    `json:"app_id"`
	IncludedUnits       int64     `json:"included_units"`
	ConsumedUnits       int64     `json:"consumed_units"`
	ThresholdPercentage int       `json:"threshold_percentage"`
	PeriodStart         int64     `json:"period_start"`
	Unit                string    `json:"unit,omitempty"`
	OccurredAt          time.Time `json:"occurred_at"`
}

// UnitMicrocents is the unit of spend meters: a soft cap's thresholds are
// decided and reported in micro-cents, the unit every cost is recorded in,
// so a fractional cap (1.9 cents) is neither floored nor rounded.
const UnitMicrocents = "microcents"

// MeterDefinition is what decides a meter's crossings.
type MeterDefinition struct {
	MeterID  string
	MeterKey string
	AppID    *string
	Included int64 // in the meter's raw units (micro-cents for spend meters)
	Percents []int // whole percents, ascending, distinct
	Unit     string
}

// MeterState is one meter as meters list shows it.
type MeterState struct {
	MeterID       string    `json:"meter_id"`
	MeterKey      string    `json:"meter_key"`
	AppID         *string   `json:"app_id"`
	IncludedUnits int64     `json:"included_units"`
	Thresholds    []int     `json:"thresholds"`
	ConsumedUnits int64     `json:"consumed_units"`
	PeriodStart   int64     `json:"period_start"`
	Crossed       []int     `json:"crossed_thresholds"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// counter is a meter's consumption in its current period.
type counter struct {
	PeriodStart int64     `json:"period_start"`
	Raw         int64     `json:"raw"`
	Crossed     []float64 `json:"crossed"`
}

// Meters is the write model of an organization's meters.
type Meters struct {
	Defined  map[string]MeterDefinedV1 `json:"defined"`
	Counters map[string]counter        `json:"counters"`
	Applied  int64                     `json:"applied"` // consumptions recorded (for tests and the snapshot)
}

// LoadMeters folds the meters stream.
func LoadMeters(history []event.Recorded) (*Meters, error) {
	m := &Meters{Defined: map[string]MeterDefinedV1{}, Counters: map[string]counter{}}
	for _, r := range history {
		switch r.Type {
		case event.SnapshotType:
			var s Meters
			if err := json.Unmarshal(r.Payload, &s); err != nil {
				return nil, err
			}
			if s.Defined != nil {
				m.Defined = s.Defined
			}
			if s.Counters != nil {
				m.Counters = s.Counters
			}
			m.Applied = s.Applied
		case MeterDefined:
			p, err := event.Decode[MeterDefinedV1](r)
			if err != nil {
				return nil, err
			}
			m.Defined[p.MeterID] = p
		case MeterDeleted:
			p, err := event.Decode[MeterDeletedV1](r)
			if err != nil {
				return nil, err
			}
			delete(m.Defined, p.MeterID)
			delete(m.Counters, p.MeterID)
		case MeterConsumed:
			p, err := event.Decode[MeterConsumedV1](r)
			if err != nil {
				return nil, err
			}
			for id, d := range p.Deltas {
				m.Counters[id] = m.Counters[id].add(p.PeriodStart, d)
			}
			m.Applied++
		case MeterThresholdCrossed:
			p, err := event.Decode[MeterThresholdCrossedV1](r)
			if err != nil {
				return nil, err
			}
			c := m.Counters[p.MeterID]
			if c.PeriodStart == p.PeriodStart {
				c.Crossed = appendNew(c.Crossed, crossedPercent(p))
				m.Counters[p.MeterID] = c
			}
		}
	}
	return m, nil
}

// crossedPercent is the threshold a crossing passed, as the counter
// remembers it: the whole percent the decision used and the event carries.
func crossedPercent(p MeterThresholdCrossedV1) float64 { return float64(p.ThresholdPercentage) }

// add counts raw units in period; a later period starts from zero.
func (c counter) add(period, raw int64) counter {
	switch {
	case period > c.PeriodStart:
		return counter{PeriodStart: period, Raw: raw}
	case period < c.PeriodStart:
		return c // a late event of a closed period changes nothing
	}
	c.Raw += raw
	return c
}

// MeterInput is a meter as a client defines it.
type MeterInput struct {
	MeterID       string
	MeterKey      string
	AppID         *string
	IncludedUnits int64
	Thresholds    []int // nil: 50, 80, 100
}

// Define creates or changes a meter (at most MaxMeters per organization);
// an unchanged one appends nothing.
func (m *Meters) Define(in MeterInput, now time.Time) ([]event.Change, error) {
	var fields []errs.Field
	if !MeterIDPattern.MatchString(in.MeterID) {
		fields = append(fields, errs.Field{Pointer: "/meterId", Detail: "must match ^[a-z0-9][a-z0-9._-]{0,62}$"})
	}
	if !slices.Contains(MeterKeys, in.MeterKey) {
		fields = append(fields, errs.Field{Pointer: "/meter_key", Detail: "must be one of " + strings.Join(MeterKeys, ", ")})
	}
	if in.AppID != nil {
		fields = text.Line(fields, "/app_id", *in.AppID, text.MaxID)
	}
	if in.IncludedUnits < 1 || in.IncludedUnits > MaxIncludedUnits {
		fields = append(fields, errs.Field{Pointer: "/included_units", Detail: "must be between 1 and 1e15"})
	}
	thresholds := in.Thresholds
	if thresholds == nil {
		thresholds = []int{defaultThreshold1, defaultThreshold2, defaultThreshold3}
	}
	if len(thresholds) > MaxThresholds {
		fields = append(fields, errs.Field{Pointer: "/thresholds", Detail: "at most 10 thresholds"})
	}
	clean := []int{}
	for i, t := range thresholds {
		if t < 1 || t > MaxThresholdPercent {
			fields = append(fields, errs.Field{Pointer: fmt.Sprintf("/thresholds/%d", i), Detail: "must be a percentage from 1 to 1000"})
			continue
		}
		if !slices.Contains(clean, t) {
			clean = append(clean, t)
		}
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	slices.Sort(clean)
	d := MeterDefinedV1{MeterID: in.MeterID, MeterKey: in.MeterKey, AppID: in.AppID, IncludedUnits: in.IncludedUnits, Thresholds: clean, At: now}
	old, exists := m.Defined[in.MeterID]
	if exists && old.MeterKey == d.MeterKey && equalPtr(old.AppID, d.AppID) && old.IncludedUnits == d.IncludedUnits && slices.Equal(old.Thresholds, d.Thresholds) {
		return nil, nil
	}
	if !exists && len(m.Defined) >= MaxMeters {
		return nil, errs.Conflict("meter_limit_reached", fmt.Sprintf("an organization has at most %d meters", MaxMeters))
	}
	return []event.Change{event.New(MeterDefined, d)}, nil
}

// Delete removes a meter and its consumption.
func (m *Meters) Delete(id string, now time.Time) ([]event.Change, error) {
	if _, ok := m.Defined[id]; !ok {
		return nil, errs.NotFound("meter")
	}
	return []event.Change{event.New(MeterDeleted, MeterDeletedV1{MeterID: id, At: now})}, nil
}

// Definitions are the defined meters plus the soft caps' meters (a soft cap
// with notifyThresholds and a cap of at least one micro-cent), sorted by id.
// A spend meter's included units are the cap in micro-cents, exact: the
// cap is never floored to whole cents, so a 1.9-cent cap's 50% is reached
// at 0.95 cents, not at 0.5.
func (m *Meters) Definitions(caps []SpendCap) []MeterDefinition {
	var out []MeterDefinition
	for _, d := range m.Defined {
		out = append(out, MeterDefinition{MeterID: d.MeterID, MeterKey: d.MeterKey, AppID: d.AppID, Included: d.IncludedUnits,
			Percents: d.Thresholds})
	}
	for _, c := range caps {
		if !c.IsActive || c.CapMode != CapSoft || len(c.NotifyThresholds) == 0 {
			continue
		}
		included := c.CapMicrocents()
		if included < 1 {
			continue // a zero cap: no spend is a share of it (included_units >= 1)
		}
		out = append(out, MeterDefinition{MeterID: CapMeterID(c.ID), MeterKey: KeySpendPrefix + c.Scope(), Included: included,
			Percents: WholePercents(c.NotifyThresholds), Unit: UnitMicrocents})
	}
	slices.SortFunc(out, func(a, b MeterDefinition) int { return strings.Compare(a.MeterID, b.MeterID) })
	return out
}

// CapMeterID is the meter of a soft cap's notifyThresholds.
func CapMeterID(capID string) string { return "cap:" + capID }

// UnitsFor is what meter key counts of a usage record (raw units; spend in
// micro-cents of the record's scope).
func UnitsFor(key string, rec UsageRecordedV1) int64 {
	ai := strings.HasPrefix(rec.Action, "ai.")
	u := rec.Units
	switch key {
	case KeyAITokens:
		return when(ai, u.InputTokens+u.OutputTokens)
	case KeyAIInputTokens:
		return when(ai, u.InputTokens)
	case KeyAIOutputTokens:
		return when(ai, u.OutputTokens)
	case KeyAIRequests:
		return when(ai && rec.Outcome == OutcomeOK, 1)
	case KeyAICharacters:
		return when(ai, u.Characters)
	case KeyAIAudioSeconds:
		return when(ai, (u.AudioMS+999)/1000)
	case KeyAIImages:
		return when(ai, u.Images)
	case KeyEmailMessages:
		return when(rec.Action == "email.send", u.Messages)
	case KeyIMMessages:
		return when(rec.Action == "instant_message.send", u.Messages)
	case KeyPaymentsCalls:
		return when(strings.HasPrefix(rec.Action, "payments."), u.Calls)
	case KeySpendPrefix + ScopeOrganization:
		return rec.Cost
	}
	if scope, ok := strings.CutPrefix(key, KeySpendPrefix); ok && scope == UserScope(rec.BudgetUser()) {
		return rec.Cost
	}
	return 0
}

func when(ok bool, n int64) int64 {
	if ok {
		return n
	}
	return 0
}

// Consume counts one usage event (its event id, record and the time the
// period is taken from) on every matching meter and decides the crossings:
// for each threshold t of a meter, previous < t x included / 100 <=
// consumed, once per meter, threshold and period. A jump over several
// thresholds crosses each; a value landing exactly on one crosses it once.
func (m *Meters) Consume(usageEventID string, rec UsageRecordedV1, caps []SpendCap, now time.Time) ([]event.Change, error) {
	period := MonthStart(rec.OccurredAt).Unix()
	deltas := map[string]int64{}
	var crossings []event.Change
	for _, d := range m.Definitions(caps) {
		if d.AppID != nil && *d.AppID != rec.AppID {
			continue
		}
		raw := UnitsFor(d.MeterKey, rec)
		if raw <= 0 {
			continue
		}
		before := m.Counters[d.MeterID]
		after := before.add(period, raw)
		if after.PeriodStart != period {
			continue // a late event of a closed period
		}
		deltas[d.MeterID] = raw
		prev := int64(0)
		crossed := []float64(nil)
		if before.PeriodStart == period {
			prev, crossed = before.Raw, before.Crossed
		}
		app := "*"
		if d.AppID != nil {
			app = *d.AppID
		}
		for _, t := range d.Percents {
			at := ThresholdUnits(t, d.Included)
			if prev < at && at <= after.Raw && !slices.Contains(crossed, float64(t)) {
				crossings = append(crossings, event.New(MeterThresholdCrossed, MeterThresholdCrossedV1{
					MeterID: d.MeterID, MeterKey: d.MeterKey, AppID: app, IncludedUnits: d.Included,
					ConsumedUnits: after.Raw, ThresholdPercentage: t, PeriodStart: period, Unit: d.Unit, OccurredAt: now}))
			}
		}
	}
	if len(deltas) == 0 {
		return nil, nil
	}
	return append([]event.Change{event.New(MeterConsumed, MeterConsumedV1{UsageEventID: usageEventID, PeriodStart: period, Deltas: deltas})},
		crossings...), nil
}

// ThresholdUnits is the least whole number of raw units that reaches
// percent% of included: ceil(percent x included / 100), exact (big
// integers: a spend meter's included units reach 1e18 micro-cents, times
// 1000%). Consumption c has reached the threshold exactly when c >= it,
// that is when c x 100 >= percent x included.
func ThresholdUnits(percent int, included int64) int64 {
	n := new(big.Int).Mul(big.NewInt(int64(percent)), big.NewInt(included))
	q, rem := n.QuoRem(n, big.NewInt(100), new(big.Int))
	if rem.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return math.MaxInt64
	}
	return q.Int64()
}

// WholePercents are a soft cap's notifyThresholds as the whole percents
// they notify at, ascending and distinct: the contract's
// threshold_percentage is an integer, so a fractional threshold notifies
// when the next whole percent is reached (33.3 at 34%), never before what
// the notification says; at least 1.
func WholePercents(thresholds []float64) []int {
	var out []int
	for _, t := range thresholds {
		p := max(1, int(math.Ceil(t)))
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// State lists the defined meters with their current consumption (soft
// caps' meters are shown by the caps).
func (m *Meters) State(now time.Time) []MeterState {
	out := []MeterState{}
	period := MonthStart(now).Unix()
	for _, d := range m.Defined {
		c := m.Counters[d.MeterID]
		s := MeterState{MeterID: d.MeterID, MeterKey: d.MeterKey, AppID: d.AppID, IncludedUnits: d.IncludedUnits,
			Thresholds: d.Thresholds, PeriodStart: period, Crossed: []int{}, UpdatedAt: d.At}
		if c.PeriodStart == period {
			s.ConsumedUnits = c.Raw
			for _, t := range c.Crossed {
				s.Crossed = append(s.Crossed, int(t))
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b MeterState) int { return strings.Compare(a.MeterID, b.MeterID) })
	return out
}

func appendNew[T comparable](list []T, v T) []T {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
