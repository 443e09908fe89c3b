package gateway

import (
	"cmp"
	"context"
	"runtime/trace"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/eventstore"
)

// Caller is who a metered call is for.
type Caller struct {
	OrganizationID string `json:"organization_id"`
	PrincipalID    string `json:"principal_id"`
	PrincipalType  string `json:"principal_type"`
	// UserID is the user the call is accounted to: a session's user, the
	// user an API key acts as (its creator), so a user's spend caps hold
	// whichever credential of the user calls; "" for service and system
	// callers, which are accounted as themselves (BudgetUser).
	UserID  string `json:"user_id,omitempty"`
	AppID   string `json:"app_id"`
	UseCase string `json:"use_case"`
	// CorrelationID ties the call to its request (the HTTP request id).
	CorrelationID string `json:"correlation_id"`
}

// CallerOf is the caller of a command's meta (the HTTP routes').
func CallerOf(m commands.Meta, appID, useCase string) Caller {
	return Caller{OrganizationID: m.OrganizationID, PrincipalID: m.Actor.ID, PrincipalType: m.Actor.Type, UserID: m.ActingUser,
		AppID: appID, UseCase: useCase, CorrelationID: m.CorrelationID}
}

// BudgetUser is whom the call's per-user budget row and user caps are for:
// the user it acts as, else the principal itself.
func (c Caller) BudgetUser() string { return cmp.Or(c.UserID, c.PrincipalID) }

// Call is one metered provider operation: what it is, on which connection,
// and its worst case (what is reserved).
type Call struct {
	Caller       Caller       `json:"caller"`
	Action       string       `json:"action"` // ai.completions, email.send, ...
	Provider     string       `json:"provider"`
	Model        string       `json:"model"`
	Operation    string       `json:"operation"` // the priced operation (prices.OpChat, ...)
	ConnectionID string       `json:"connection_id"`
	BYOK         bool         `json:"byok"`
	Estimate     prices.Units `json:"estimate"`
}

// Attempt is what a provider call left, as the metered path records it.
type Attempt struct {
	Units prices.Units
	// Partial: the units are what was seen of a call that did not finish
	// (a cut stream, an answer without usage): it settles at the larger of
	// them and the estimate, never at 0.
	Partial           bool
	Outcome           string // domain.Outcome*
	Error             string // a few words, never a provider's body
	ProviderRequestID string
	RetryAfter        time.Duration
}

// Receipt is what a metered call cost.
type Receipt struct {
	RequestID    string       `json:"request_id"`
	Provider     string       `json:"provider"`
	Model        string       `json:"model"`
	Units        prices.Units `json:"units"`
	Estimated    bool         `json:"estimated"`
	CostCents    float64      `json:"cost_cents"`
	PriceVersion string       `json:"price_version"`
	Outcome      string       `json:"outcome"`
	LatencyMS    int64        `json:"latency_ms"`
	// ownKey: the call used the organization's own credentials (BYOK).
	ownKey bool
}

// Metered is the one path of every provider operation: price it (an
// unpriced model or operation is refused before anything), reserve its
// worst case against the hard caps (402 spend_cap_exceeded, 503 when the
// budget store is down: before any provider is contacted), call it, record
// the provider's health, and settle the usage event with the actual cost.
// do gets a context bounded by the call timeout; its Attempt is recorded
// whatever its outcome. The receipt comes back with the attempt's outcome
// for the caller to answer (Problem turns a failed one into its error).
func (h *Handlers) Metered(ctx context.Context, call Call, do func(ctx context.Context) Attempt) (Receipt, Attempt, error) {
	price, err := prices.Current.Lookup(call.Provider, call.Model, call.Operation)
	if err != nil {
		e := errs.InvalidField("/model", UnpricedModel)
		e.Message = "the model " + call.Model + " has no price for " + call.Operation + " on " + call.Provider +
			" in price table " + prices.Current.Version + "; priced models: " + joinModels(call.Provider, call.Operation)
		return Receipt{}, Attempt{}, e
	}
	fee := 0.0
	if call.BYOK {
		if fee, err = h.serviceFee(ctx, call.Caller.OrganizationID); err != nil {
			return Receipt{}, Attempt{}, err
		}
	}
	now := h.now()
	r := &reservation{RequestID: uuid.Must(uuid.NewV7()).String(), Org: call.Caller.OrganizationID,
		Amount: domain.Rate(price, call.Estimate, call.BYOK, fee).Cost, Month: domain.Month(now), Call: call}
	// The three stages are regions of the request's task under the
	// execution tracer (no cost otherwise), so a slow call shows which
	// one it waited in.
	reserving := trace.StartRegion(ctx, "gateway.reserve")
	err = h.reserve(ctx, r, now.Add(h.cfg.ReservationTTL))
	reserving.End()
	if err != nil {
		return Receipt{}, Attempt{}, err
	}
	start := time.Now()
	calling := trace.StartRegion(ctx, "gateway.call")
	a := do(ctx)
	calling.End()
	latency := time.Since(start).Milliseconds()
	if a.Outcome == "" {
		a.Outcome = domain.OutcomeOK
	}
	units, estimated := a.Units, false
	if a.Partial || a.Outcome == domain.OutcomeCut {
		units, estimated = a.Units.Max(call.Estimate), true
	}
	if a.Outcome == domain.OutcomeOK && !estimated && price.Cost(units) == 0 && price.Cost(call.Estimate) > 0 {
		// A success that reported nothing billable is not free: no
		// operation passes the meter at $0.
		units, estimated = a.Units.Max(call.Estimate), true
	}
	charge := domain.Rate(price, units, call.BYOK, fee)
	rec := domain.UsageRecordedV1{RequestID: r.RequestID, PrincipalID: call.Caller.PrincipalID, PrincipalType: call.Caller.PrincipalType,
		UserID: call.Caller.UserID, AppID: call.Caller.AppID, UseCase: call.Caller.UseCase, Action: call.Action, Provider: call.Provider, Model: call.Model,
		Operation: call.Operation, ConnectionID: call.ConnectionID, BYOK: call.BYOK, Units: units, Estimated: estimated,
		LatencyMS: latency, Outcome: a.Outcome, Error: a.Error, ProviderRequestID: a.ProviderRequestID,
		ProviderCost: charge.ProviderCost, ServiceFee: charge.ServiceFee, Cost: charge.Cost, Reserved: r.Amount,
		PriceVersion: prices.Current.Version, Month: r.Month, OccurredAt: h.now()}
	// The caller may be gone (a closed stream): what happened is recorded all the same.
	bg := context.WithoutCancel(ctx)
	h.recordHealth(bg, call, a, latency)
	m := commands.Meta{OrganizationID: call.Caller.OrganizationID, Actor: eventstore.Actor{ID: call.Caller.PrincipalID, Type: call.Caller.PrincipalType},
		CorrelationID: call.Caller.CorrelationID}
	// The call was answered: it settles at its real cost. With the database
	// out, the settle is held in this process and tried again until it
	// lands (landings.go), and written to the settle log so that it
	// outlives the process (settle_log.go); the sweeper leaves its
	// reservation alone.
	settling := trace.StartRegion(ctx, "gateway.settle")
	err = h.landings.land(bg, heldSettle+r.RequestID, func(ctx context.Context) error {
		_, err := h.settle(ctx, m, rec, r.Scopes)
		return err
	}, h.keepSettle(m, rec, r.Scopes))
	settling.End()
	if err != nil {
		// Refused for good (a bug): the reservation stays, and the sweeper
		// settles it at its full amount (over-counted, never leaked).
		h.log.Error("gateway: settle refused; the sweeper will settle the reservation", "request_id", r.RequestID, "err", err)
	}
	return Receipt{RequestID: r.RequestID, Provider: call.Provider, Model: call.Model, Units: units, Estimated: estimated,
		CostCents: float64(charge.Cost) / 1e6, PriceVersion: prices.Current.Version, Outcome: a.Outcome, LatencyMS: latency,
		ownKey: call.BYOK}, a, nil
}

// Details of the 422s whose rule is data, not schema (the fuzzing gate's
// known rules name them): the price table, the provider's own rules.
const (
	UnpricedModel     = "the model has no price in the current price table"
	RefusedByProvider = "refused by the provider"
)

// Problem is the error a failed attempt answers with: the provider's fault
// 502 provider_error (naming the provider and its request id, never its
// body), its timeout 504, its 429 with its Retry-After, input it refused 422.
func Problem(r Receipt, a Attempt) error {
	why := a.Error
	if why == "" {
		why = a.Outcome
	}
	var e *errs.Error
	switch a.Outcome {
	case domain.OutcomeOK:
		return nil
	case domain.OutcomeTimeout:
		e = errs.GatewayTimeout("provider_timeout", "the provider "+r.Provider+" did not answer in time", nil)
	case domain.OutcomeRateLimited:
		e = &errs.Error{Kind: errs.KindRateLimited, Code: "provider_rate_limited", Message: "the provider " + r.Provider + " is rate limiting: " + why,
			RetryAfterSeconds: max(1, int((a.RetryAfter+time.Second-1)/time.Second))}
	case domain.OutcomeInvalidRequest:
		e = &errs.Error{Kind: errs.KindInvalidInput, Code: "invalid_input", Message: "the provider " + r.Provider + " refused the request: " + why,
			Fields: []errs.Field{{Pointer: "", Detail: RefusedByProvider}}}
	case domain.OutcomeUnauthorized:
		if r.ownKey {
			// The organization's own credentials: its connection is now
			// deauthorized; setting new credentials is the way out. Not a
			// server error of ours.
			e = errs.Conflict("connection_unauthorized", "the provider "+r.Provider+" refused the organization's credentials; the connection is deauthorized until new ones are set")
			break
		}
		e = errs.BadGateway("provider_unauthorized", "the provider "+r.Provider+" refused the platform's credentials", nil)
	case domain.OutcomeCallerCanceled:
		return context.Canceled
	default:
		e = errs.BadGateway("provider_error", "the provider "+r.Provider+" failed: "+why, nil)
	}
	// Built only for a failure: every successful call passes here.
	e.Extensions = map[string]any{"provider": r.Provider, "request_id_gateway": r.RequestID}
	if a.ProviderRequestID != "" {
		e.Extensions["provider_request_id"] = a.ProviderRequestID
	}
	return e
}

func joinModels(provider, op string) string {
	models := prices.Current.Models(provider, op)
	if len(models) == 0 {
		return "none"
	}
	out := models[0]
	for _, m := range models[1:] {
		out += ", " + m
	}
	return out
}
