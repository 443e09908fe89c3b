package gateway

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/gateway/prices"
)

// StreamUsage is one provider call's stream: its id is UsageStreamID(request
// id), so a retried settle of the same call finds the call settled.
const StreamUsage = "gateway.usage"

// UsageRecorded is the record of one provider attempt, success or failure.
const UsageRecorded = "gateway.usage.recorded"

// UsageEventTypes are the usage area's event types.
var UsageEventTypes = []string{UsageRecorded}

// UsageStreamID is the stream of the call with that request id.
func UsageStreamID(requestID string) string { return "usage:" + requestID }

// Outcomes of an attempt.
const (
	OutcomeOK             = "ok"
	OutcomeProviderError  = "provider_error"  // 5xx, a malformed answer, a refused connection
	OutcomeRateLimited    = "rate_limited"    // the provider's 429
	OutcomeInvalidRequest = "invalid_request" // the provider refused the input, or cannot do the operation
	OutcomeUnauthorized   = "unauthorized"    // the connection's key was refused (401, 403)
	OutcomeCallerCanceled = "caller_canceled" // the caller left or its own deadline ran out
	OutcomeTimeout        = "timeout"         // the provider did not answer within its timeout
	OutcomeCut            = "cut"             // a stream ended early or without its final usage
	OutcomeAbandoned      = "abandoned"       // the process died between reserve and settle (the sweeper)
)

// Outcomes lists every outcome, for schemas.
var Outcomes = []string{OutcomeOK, OutcomeProviderError, OutcomeRateLimited, OutcomeInvalidRequest, OutcomeUnauthorized,
	OutcomeCallerCanceled, OutcomeTimeout, OutcomeCut, OutcomeAbandoned}

// ProviderCaused reports whether an outcome is the provider's fault: only
// those degrade its health. A caller's deadline, bad input, a 429 and one
// connection's refused key do not degrade a provider for everyone.
func ProviderCaused(outcome string) bool {
	switch outcome {
	case OutcomeProviderError, OutcomeTimeout, OutcomeCut:
		return true
	}
	return false
}

// Severity of an outcome as usage.events.list filters it.
func Severity(outcome string) string {
	switch outcome {
	case OutcomeOK:
		return "info"
	case OutcomeProviderError, OutcomeTimeout, OutcomeCut, OutcomeAbandoned:
		return "error"
	}
	return "warning"
}

// Severities are the values of Severity.
var Severities = []string{"info", "warning", "error"}

// UsageRecordedV1 is one attempt: who, what, the raw units (the record), and
// what it was charged against the caps with which price table.
type UsageRecordedV1 struct {
	RequestID     string `json:"request_id"`
	PrincipalID   string `json:"principal_id"`
	PrincipalType string `json:"principal_type"`
	// UserID is the user the call acted as (an API key's creator); absent
	// on events recorded before it, and for service and system callers.
	UserID  string `json:"user_id,omitempty"`
	AppID   string `json:"app_id"`
	UseCase string `json:"use_case"`
	// Action is the gateway action (ai.completions, ...); Operation the
	// priced operation (chat, embedding, ...).
	Action       string       `json:"action"`
	Provider     string       `json:"provider"`
	Model        string       `json:"model"`
	Operation    string       `json:"operation"`
	ConnectionID string       `json:"connection_id"`
	BYOK         bool         `json:"byok"`
	Units        prices.Units `json:"units"`
	// Estimated: the units are an estimate (a cut stream, an answer without
	// usage, an abandoned call), never less than what was reserved.
	Estimated         bool   `json:"estimated"`
	LatencyMS         int64  `json:"latency_ms"`
	Outcome           string `json:"outcome"`
	Error             string `json:"error,omitempty"` // a few words, never a provider's body
	ProviderRequestID string `json:"provider_request_id,omitempty"`
	// ProviderCost is the units at the price table's rate; ServiceFee the
	// BYOK fee on it; Cost what was charged against the caps (ProviderCost
	// on platform keys, ServiceFee alone on the organization's own key).
	// Micro-cents.
	ProviderCost int64  `json:"provider_cost_microcents"`
	ServiceFee   int64  `json:"service_fee_microcents"`
	Cost         int64  `json:"cost_microcents"`
	Reserved     int64  `json:"reserved_microcents"`
	PriceVersion string `json:"price_version"`
	// Month is the budget month the call counts in ("2026-04", UTC): the
	// reservation's.
	Month      string    `json:"month"`
	OccurredAt time.Time `json:"occurred_at"`
}

// BudgetUser is whom the call counts for in per-user budgets and caps: the
// user it acted as, else its principal (services, system keys, and events
// recorded before calls carried their user).
func (r UsageRecordedV1) BudgetUser() string {
	if r.UserID != "" {
		return r.UserID
	}
	return r.PrincipalID
}

// Charge is what a call costs under a price table: the rated provider cost,
// the service fee, and what the caps are charged.
type Charge struct {
	ProviderCost int64
	ServiceFee   int64
	Cost         int64
}

// Rate charges units: on the platform's keys the provider cost; on the
// organization's own key (BYOK) only the service fee (feeBps of the rated
// cost, rounded up), since the provider bills the organization directly.
func Rate(p prices.Price, u prices.Units, byok bool, feeBps float64) Charge {
	c := Charge{ProviderCost: p.Cost(u)}
	if !byok {
		c.Cost = c.ProviderCost
		return c
	}
	c.ServiceFee = feeOf(c.ProviderCost, feeBps)
	c.Cost = c.ServiceFee
	return c
}

// feeOf is bps basis points of cost, rounded up to a micro-cent. The fee
// is held as 1e-4 basis points so a fractional fee (seed: a number) stays
// exact in integers.
func feeOf(cost int64, bps float64) int64 {
	microBps := int64(math.Round(bps * 1e4))
	if cost <= 0 || microBps <= 0 {
		return 0
	}
	n := new(big.Int).Mul(big.NewInt(cost), big.NewInt(microBps))
	q, r := new(big.Int).QuoRem(n, big.NewInt(1e8), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// Month is the budget month of t (UTC).
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// MonthStart is the first instant of t's UTC month.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// Settle decides a call's usage event. A stream that already holds one
// (a retried settle, or the sweeper and the call racing) decides nothing:
// a call is recorded once.
func Settle(history []event.Recorded, rec UsageRecordedV1) ([]event.Change, error) {
	if len(history) > 0 {
		return nil, nil
	}
	if rec.RequestID == "" || rec.Month == "" {
		return nil, fmt.Errorf("usage record without request id or month")
	}
	return []event.Change{event.New(UsageRecorded, rec)}, nil
}

// Settled is the usage stream's state: the call's record, if any.
func Settled(history []event.Recorded) (UsageRecordedV1, bool, error) {
	for _, r := range history {
		if r.Type == UsageRecorded {
			rec, err := event.Decode[UsageRecordedV1](r)
			return rec, err == nil, err
		}
	}
	return UsageRecordedV1{}, false, nil
}
