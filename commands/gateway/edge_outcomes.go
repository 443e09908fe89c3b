package gateway

import (
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/providers/delivery"
)

// edgeOutcomes is the usage outcome of a failed attempt of the edge's
// adapters, by the adapter's kind (the delivery and payments adapters name
// theirs alike: TestEdgeKindsAgree holds them so). Any other kind (rejected, invalid, invalid_request,
// idempotency_conflict) is the provider refusing the request.
var edgeOutcomes = map[string]string{
	string(delivery.ProviderFault): domain.OutcomeProviderError,
	string(delivery.RateLimited):   domain.OutcomeRateLimited,
	string(delivery.Unauthorized):  domain.OutcomeUnauthorized,
	string(delivery.Canceled):      domain.OutcomeCallerCanceled,
}

// edgeOutcome classifies a failure kind; a provider fault that was the
// provider's timeout is a timeout (504, not 502).
func edgeOutcome(kind string, timedOut bool) string {
	o, ok := edgeOutcomes[kind]
	switch {
	case !ok:
		return domain.OutcomeInvalidRequest
	case o == domain.OutcomeProviderError && timedOut:
		return domain.OutcomeTimeout
	}
	return o
}
