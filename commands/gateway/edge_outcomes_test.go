package gateway

import (
	"testing"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/payments/stripe"
)

// TestEdgeKindsAgree: the payments adapter's kinds are spelled as the
// delivery adapters', so one table classifies both.
func TestEdgeKindsAgree(t *testing.T) {
	for d, s := range map[delivery.Kind]stripe.Kind{delivery.ProviderFault: stripe.ProviderFault, delivery.RateLimited: stripe.RateLimited,
		delivery.Unauthorized: stripe.Unauthorized, delivery.Canceled: stripe.Canceled, delivery.Invalid: stripe.Invalid} {
		if string(d) != string(s) {
			t.Errorf("%s != %s", d, s)
		}
	}
	for kind, want := range map[string]string{"provider_fault": domain.OutcomeProviderError, "rejected": domain.OutcomeInvalidRequest,
		"idempotency_conflict": domain.OutcomeInvalidRequest, "canceled": domain.OutcomeCallerCanceled} {
		if got := edgeOutcome(kind, false); got != want {
			t.Errorf("%s: %s, want %s", kind, got, want)
		}
	}
	if edgeOutcome("provider_fault", true) != domain.OutcomeTimeout || edgeOutcome("rate_limited", true) != domain.OutcomeRateLimited {
		t.Error("only a provider fault is a timeout")
	}
}
