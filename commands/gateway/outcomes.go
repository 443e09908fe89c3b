package gateway

import (
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/providers/outcome"
)

// outcomes is the usage outcome of a failed provider call by its kind, for
// every adapter the gateway calls (AI, delivery, payments). Any other kind
// (rejected, invalid, AI's unsupported, Stripe's idempotency_conflict) is
// the request refused, by the provider or before it.
var outcomes = map[outcome.Kind]string{
	outcome.ProviderFault: domain.OutcomeProviderError,
	outcome.RateLimited:   domain.OutcomeRateLimited,
	outcome.Unauthorized:  domain.OutcomeUnauthorized,
	outcome.Canceled:      domain.OutcomeCallerCanceled,
}

// outcomeOf classifies a failure kind; a provider fault that was the
// provider's timeout is a timeout (504, not 502).
func outcomeOf(kind outcome.Kind, timedOut bool) string {
	o, ok := outcomes[kind]
	switch {
	case !ok:
		return domain.OutcomeInvalidRequest
	case o == domain.OutcomeProviderError && timedOut:
		return domain.OutcomeTimeout
	}
	return o
}
