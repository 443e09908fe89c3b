package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/payments/stripe"
)

// InvokePayments is payments.processor.invoke's input (seed 001).
type InvokePayments struct {
	Operation string         `json:"operation"`
	Params    map[string]any `json:"params"`
}

// PaymentsAnswer is the provider's answer (its object, as it sent it) and
// what the call cost.
type PaymentsAnswer struct {
	Receipt
	Operation          string          `json:"operation"`
	Status             int             `json:"status"`
	Object             json.RawMessage `json:"object"`
	IdempotentReplayed bool            `json:"idempotent_replayed"`
	ProviderRequestID  string          `json:"provider_request_id"`
	ConnectionID       string          `json:"connection_id"`
	Sandbox            bool            `json:"sandbox"`
}

// InvokePayments runs one payments operation on the organization's own
// payments connection (BYOK) or the platform's, through the metered path
// (one call), once: the adapter never retries, and the caller's
// Idempotency-Key goes through to the provider (scoped to the
// organization, since the platform's connection serves every one), so the
// caller's retry is the provider's replay.
func (e *Edge) InvokePayments(ctx context.Context, m commands.Meta, in InvokePayments) (PaymentsAnswer, error) {
	if _, ok := stripe.LookupOperation(in.Operation); !ok {
		return PaymentsAnswer{}, errs.InvalidField("/operation", "unknown operation")
	}
	link, err := e.Resolve(ctx, m.OrganizationID, domain.ProviderPaymentsA, "")
	if err != nil {
		return PaymentsAnswer{}, err
	}
	if link.Payments == nil {
		return PaymentsAnswer{}, errs.InvalidField("/operation", "no payments connection")
	}
	req := stripe.Request{Operation: in.Operation, Params: in.Params, IdempotencyKey: providerKey(m)}
	call := Call{Caller: CallerOf(m, DefaultAppID, "other"), Action: "payments.processor.invoke", Provider: link.Provider, Model: in.Operation,
		Operation: prices.OpPayments, ConnectionID: link.ConnectionID, BYOK: link.BYOK, Estimate: prices.Units{Calls: 1}}
	var resp *stripe.Response
	var serr *stripe.Error
	receipt, a, err := e.h.Metered(ctx, call, func(ctx context.Context) Attempt {
		var err error
		resp, err = link.Payments.Invoke(ctx, req)
		var attempt Attempt
		attempt, serr = paymentsAttempt(resp, err)
		return attempt
	})
	if err != nil {
		return PaymentsAnswer{}, err
	}
	if a.Outcome != domain.OutcomeOK {
		if a.Outcome == domain.OutcomeUnauthorized && link.BYOK {
			e.deauthorizeRefused(context.WithoutCancel(ctx), link, m.CorrelationID)
		}
		return PaymentsAnswer{}, paymentsProblem(receipt, a, serr)
	}
	return PaymentsAnswer{Receipt: receipt, Operation: in.Operation, Status: resp.Status, Object: resp.Body,
		IdempotentReplayed: resp.IdempotentReplayed, ProviderRequestID: resp.RequestID, ConnectionID: link.ConnectionID, Sandbox: link.Sandbox}, nil
}

// providerKey scopes the caller's Idempotency-Key to its organization
// (two organizations' "order-1" must not meet at the provider).
func providerKey(m commands.Meta) string {
	if m.IdempotencyKey == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(m.OrganizationID + "\x00" + m.IdempotencyKey))
	return "gw_" + hex.EncodeToString(sum[:])
}

// paymentsAttempt classifies the provider's answer for the metered path.
func paymentsAttempt(resp *stripe.Response, err error) (Attempt, *stripe.Error) {
	if err == nil {
		return Attempt{Outcome: domain.OutcomeOK, ProviderRequestID: resp.RequestID, Units: prices.Units{Calls: 1}}, nil
	}
	var e *stripe.Error
	if !errors.As(err, &e) {
		e = &stripe.Error{Kind: outcome.ProviderFault, Reason: "provider error"}
	}
	a := Attempt{ProviderRequestID: e.RequestID, Error: e.Reason, RetryAfter: e.RetryAfter}
	a.Outcome = outcomeOf(e.Kind, e.TimedOut)
	return a, e
}

// paymentsProblem answers a refused call with what the provider said, in
// its short tokens (type, code, decline code, param), never its text: an
// idempotency conflict as the platform's own (422 idempotency_key_reused;
// 409 while the first request runs), a declined payment 422
// payment_declined, a missing object 404, bad parameters 422.
func paymentsProblem(r Receipt, a Attempt, e *stripe.Error) error {
	if e == nil || a.Outcome != domain.OutcomeInvalidRequest {
		return Problem(r, a)
	}
	ext := map[string]any{"provider": r.Provider, "request_id_gateway": r.RequestID}
	for k, v := range map[string]string{"provider_request_id": e.RequestID, "stripe_type": e.Type, "stripe_code": e.Code,
		"decline_code": e.DeclineCode, "param": e.Param} {
		if v != "" {
			ext[k] = v
		}
	}
	var out *errs.Error
	switch {
	case e.Kind == outcome.Invalid:
		out = errs.InvalidField("/params", ParamsRefused)
		out.Message = "the params do not fit the operation: " + e.Reason
	case e.Kind == stripe.IdempotencyConflict && e.Status == http.StatusConflict:
		out = errs.Conflict("idempotency_request_in_progress", "a request with this Idempotency-Key is still being processed by the provider; retry later for its result")
		out.RetryAfterSeconds = 1
	case e.Kind == stripe.IdempotencyConflict:
		out = errs.IdempotencyMismatch()
		out.Message = "this Idempotency-Key was used with other parameters or another operation at the provider"
	case e.Status == http.StatusNotFound:
		out = errs.NotFound("the provider's object")
	case e.Status == http.StatusPaymentRequired:
		out = &errs.Error{Kind: errs.KindInvalidInput, Code: "payment_declined", Message: "the payment was declined: " + e.Reason,
			Fields: []errs.Field{{Pointer: "/params", Detail: "refused by the provider"}}}
	default:
		out = &errs.Error{Kind: errs.KindInvalidInput, Code: "invalid_input", Message: "the provider refused the request: " + e.Reason,
			Fields: []errs.Field{{Pointer: "/params" + paramPointer(e.Param), Detail: "refused by the provider"}}}
	}
	if out.Extensions == nil {
		out.Extensions = ext
	}
	return out
}

// ParamsRefused is the detail of params the adapter refuses before any
// call (a path id that is no Stripe id, a connected account where the
// operation takes none): a rule of the operation table, not of a schema.
const ParamsRefused = "the params do not fit the operation"

// paramPointer turns Stripe's param (line_items[0][price]) into a JSON
// pointer under params.
func paramPointer(param string) string {
	if param == "" {
		return ""
	}
	out := "/"
	for _, r := range param {
		switch r {
		case '[':
			out += "/"
		case ']':
		case '~':
			out += "~0"
		case '/':
			out += "~1"
		default:
			out += string(r)
		}
	}
	return out
}
