package gateway

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// StreamBilling is an organization's billing settings: its spend caps and
// the BYOK service fee, one stream per organization (BillingStreamID).
const StreamBilling = "gateway.billing"

// Billing event types.
const (
	SpendCapUpserted = "gateway.spend_cap.upserted"
	SpendCapDeleted  = "gateway.spend_cap.deleted"
	ByokFeeUpdated   = "gateway.byok_fee.updated"
)

// BillingEventTypes are the billing area's event types.
var BillingEventTypes = []string{SpendCapUpserted, SpendCapDeleted, ByokFeeUpdated}

// BillingStreamID is the billing stream of an organization.
func BillingStreamID(org string) string { return "billing:" + org }

// Cap scopes and modes (seed 001's spend cap).
const (
	ScopeOrganization = "organization"
	ScopeUser         = "user"
	CapSoft           = "soft"
	CapHard           = "hard"
)

// Bounds of spend caps.
const (
	// MaxCapCents keeps a cap in micro-cents within int64 with room to add.
	MaxCapCents = 1e12
	// MaxThresholds per cap.
	MaxThresholds = 10
	// MaxThresholdPercent: a soft cap may notify past 100%.
	MaxThresholdPercent = 1000
	// MaxFeeBps is the seed's bound of serviceFeeBps.
	MaxFeeBps = 10000
)

// SpendCap is one cap: seed 001's members, and the budget scope it guards.
type SpendCap struct {
	ID               string    `json:"id"`
	ScopeType        string    `json:"scopeType"`
	ScopeValue       *string   `json:"scopeValue"`
	MonthlyCapCents  float64   `json:"monthlyCapCents"`
	CapMode          string    `json:"capMode"`
	IsActive         bool      `json:"isActive"`
	NotifyThresholds []float64 `json:"notifyThresholds"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

// Scope is the budget scope the cap guards: "organization" or "user:<id>".
func (c SpendCap) Scope() string { return CapScope(c.ScopeType, c.ScopeValue) }

// CapMicrocents is the cap in micro-cents.
func (c SpendCap) CapMicrocents() int64 { return int64(math.Round(c.MonthlyCapCents * 1e6)) }

// Hard reports a cap that refuses calls.
func (c SpendCap) Hard() bool { return c.IsActive && c.CapMode == CapHard }

// CapScope names a budget scope.
func CapScope(scopeType string, scopeValue *string) string {
	if scopeType == ScopeUser && scopeValue != nil {
		return "user:" + *scopeValue
	}
	return ScopeOrganization
}

// UserScope is the budget scope of a user (of the principal itself for
// callers that act as no user: services, system keys).
func UserScope(user string) string { return "user:" + user }

var capSpace = uuid.MustParse("6f1c2b7e-3f55-4d7e-9a0b-2c5d8e1f4a90")

// CapID is the id of an organization's cap on a scope: one cap per scope,
// so an upsert on the same scope changes that cap.
func CapID(org, scope string) string {
	return uuid.NewSHA1(capSpace, []byte(org+"\x00"+scope)).String()
}

// SpendCapUpsertedV1 is a cap as set, whole.
type SpendCapUpsertedV1 struct {
	SpendCap
}

// SpendCapDeletedV1 names the removed cap.
type SpendCapDeletedV1 struct {
	ID        string    `json:"id"`
	ScopeType string    `json:"scopeType"`
	Scope     string    `json:"scope"`
	At        time.Time `json:"at"`
}

// ByokFeeUpdatedV1 is the new service fee.
type ByokFeeUpdatedV1 struct {
	ServiceFeeBps float64   `json:"serviceFeeBps"`
	At            time.Time `json:"at"`
}

// Billing is the write model of an organization's billing settings.
type Billing struct {
	State BillingState
}

// BillingState is the answer of every billing command and the snapshot.
type BillingState struct {
	Caps          []SpendCap `json:"caps"`
	ServiceFeeBps float64    `json:"serviceFeeBps"`
}

// LoadBilling folds a billing stream (from its snapshot when there is one).
func LoadBilling(history []event.Recorded) (*Billing, error) {
	b := &Billing{State: BillingState{Caps: []SpendCap{}}}
	for _, r := range history {
		switch r.Type {
		case event.SnapshotType:
			if err := json.Unmarshal(r.Payload, &b.State); err != nil {
				return nil, err
			}
			if b.State.Caps == nil {
				b.State.Caps = []SpendCap{}
			}
		case SpendCapUpserted:
			p, err := event.Decode[SpendCapUpsertedV1](r)
			if err != nil {
				return nil, err
			}
			b.put(p.SpendCap)
		case SpendCapDeleted:
			p, err := event.Decode[SpendCapDeletedV1](r)
			if err != nil {
				return nil, err
			}
			b.State.Caps = slices.DeleteFunc(b.State.Caps, func(c SpendCap) bool { return c.ID == p.ID })
		case ByokFeeUpdated:
			p, err := event.Decode[ByokFeeUpdatedV1](r)
			if err != nil {
				return nil, err
			}
			b.State.ServiceFeeBps = p.ServiceFeeBps
		}
	}
	return b, nil
}

func (b *Billing) put(c SpendCap) {
	if i := slices.IndexFunc(b.State.Caps, func(x SpendCap) bool { return x.ID == c.ID }); i >= 0 {
		b.State.Caps[i] = c
	} else {
		b.State.Caps = append(b.State.Caps, c)
	}
	slices.SortFunc(b.State.Caps, func(x, y SpendCap) int { return strings.Compare(x.Scope(), y.Scope()) })
}

// Cap finds a cap by id.
func (b *Billing) Cap(id string) (SpendCap, bool) {
	i := slices.IndexFunc(b.State.Caps, func(c SpendCap) bool { return c.ID == id })
	if i < 0 {
		return SpendCap{}, false
	}
	return b.State.Caps[i], true
}

// CapInput is a spend cap as a client sets it.
type CapInput struct {
	ScopeType        string
	ScopeValue       *string
	MonthlyCapCents  float64
	CapMode          *string   // default soft
	IsActive         *bool     // default true
	NotifyThresholds []float64 // default none
}

// UpsertCap sets the cap of a scope (one per scope); an unchanged cap
// appends nothing.
func (b *Billing) UpsertCap(org string, in CapInput, now time.Time) ([]event.Change, error) {
	var fields []errs.Field
	switch in.ScopeType {
	case ScopeOrganization:
		if in.ScopeValue != nil {
			fields = append(fields, errs.Field{Pointer: "/scopeValue", Detail: "must be null for an organization cap"})
		}
	case ScopeUser:
		if in.ScopeValue == nil || *in.ScopeValue == "" {
			fields = append(fields, errs.Field{Pointer: "/scopeValue", Detail: "must name the user of a user cap"})
		} else {
			fields = text.Line(fields, "/scopeValue", *in.ScopeValue, text.MaxID)
		}
	default:
		fields = append(fields, errs.Field{Pointer: "/scopeType", Detail: "must be organization or user"})
	}
	if math.IsNaN(in.MonthlyCapCents) || in.MonthlyCapCents < 0 || in.MonthlyCapCents > MaxCapCents {
		fields = append(fields, errs.Field{Pointer: "/monthlyCapCents", Detail: "must be between 0 and 1e12"})
	}
	mode := CapSoft
	if in.CapMode != nil {
		mode = *in.CapMode
	}
	if mode != CapSoft && mode != CapHard {
		fields = append(fields, errs.Field{Pointer: "/capMode", Detail: "must be soft or hard"})
	}
	if len(in.NotifyThresholds) > MaxThresholds {
		fields = append(fields, errs.Field{Pointer: "/notifyThresholds", Detail: "at most 10 thresholds"})
	}
	thresholds := []float64{}
	for i, t := range in.NotifyThresholds {
		if math.IsNaN(t) || t <= 0 || t > MaxThresholdPercent {
			fields = append(fields, errs.Field{Pointer: "/notifyThresholds/" + strconv.Itoa(i), Detail: "must be a percentage above 0 and at most 1000"})
			continue
		}
		if !slices.Contains(thresholds, t) {
			thresholds = append(thresholds, t)
		}
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	slices.Sort(thresholds)
	active := true
	if in.IsActive != nil {
		active = *in.IsActive
	}
	c := SpendCap{ScopeType: in.ScopeType, ScopeValue: in.ScopeValue, MonthlyCapCents: in.MonthlyCapCents, CapMode: mode,
		IsActive: active, NotifyThresholds: thresholds, UpdatedAt: now}
	c.ID = CapID(org, c.Scope())
	if old, ok := b.Cap(c.ID); ok {
		old.UpdatedAt = now
		if equalCaps(old, c) {
			return nil, nil
		}
	}
	return []event.Change{event.New(SpendCapUpserted, SpendCapUpsertedV1{c})}, nil
}

func equalCaps(a, b SpendCap) bool {
	return a.ID == b.ID && a.ScopeType == b.ScopeType && equalPtr(a.ScopeValue, b.ScopeValue) && a.MonthlyCapCents == b.MonthlyCapCents &&
		a.CapMode == b.CapMode && a.IsActive == b.IsActive && slices.Equal(a.NotifyThresholds, b.NotifyThresholds)
}

// DeleteCap removes a cap (404 when the organization has none of that id).
func (b *Billing) DeleteCap(id string, now time.Time) ([]event.Change, error) {
	c, ok := b.Cap(id)
	if !ok {
		return nil, errs.NotFound("spend cap")
	}
	return []event.Change{event.New(SpendCapDeleted, SpendCapDeletedV1{ID: id, ScopeType: c.ScopeType, Scope: c.Scope(), At: now})}, nil
}

// SetFee sets the BYOK service fee (0..10000 basis points).
func (b *Billing) SetFee(bps float64, now time.Time) ([]event.Change, error) {
	if math.IsNaN(bps) || bps < 0 || bps > MaxFeeBps {
		return nil, errs.InvalidField("/serviceFeeBps", "must be between 0 and 10000")
	}
	if bps == b.State.ServiceFeeBps {
		return nil, nil
	}
	return []event.Change{event.New(ByokFeeUpdated, ByokFeeUpdatedV1{ServiceFeeBps: bps, At: now})}, nil
}

// HardCaps are the active hard caps that apply to a call acting as user.
func (s BillingState) HardCaps(user string) []SpendCap {
	var out []SpendCap
	for _, c := range s.Caps {
		if c.Hard() && (c.Scope() == ScopeOrganization || c.Scope() == UserScope(user)) {
			out = append(out, c)
		}
	}
	return out
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
