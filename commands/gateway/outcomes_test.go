package gateway

import (
	"testing"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/payments/stripe"
)

func TestOutcomeOfKinds(t *testing.T) {
	for kind, want := range map[outcome.Kind]string{outcome.ProviderFault: domain.OutcomeProviderError,
		outcome.RateLimited: domain.OutcomeRateLimited, outcome.Unauthorized: domain.OutcomeUnauthorized,
		outcome.Canceled: domain.OutcomeCallerCanceled, outcome.Rejected: domain.OutcomeInvalidRequest,
		outcome.Invalid: domain.OutcomeInvalidRequest, ai.KindUnsupported: domain.OutcomeInvalidRequest,
		stripe.IdempotencyConflict: domain.OutcomeInvalidRequest} {
		if got := outcomeOf(kind, false); got != want {
			t.Errorf("%s: %s, want %s", kind, got, want)
		}
	}
	if outcomeOf(outcome.ProviderFault, true) != domain.OutcomeTimeout || outcomeOf(outcome.RateLimited, true) != domain.OutcomeRateLimited {
		t.Error("only a provider fault is a timeout")
	}
}
