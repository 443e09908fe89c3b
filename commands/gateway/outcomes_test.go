package gateway

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/platform/backend/domain/errs"
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

// TestProblemNamesTheCallOfAFailure: every failure's problem names the
// provider, the gateway's request id and the provider's (when it gave one);
// a success and the caller's own cancel are no problem of the provider's.
func TestProblemNamesTheCallOfAFailure(t *testing.T) {
	r := Receipt{RequestID: "req-1", Provider: "ai_provider_1"}
	for _, o := range []string{domain.OutcomeProviderError, domain.OutcomeRateLimited, domain.OutcomeInvalidRequest,
		domain.OutcomeUnauthorized, domain.OutcomeTimeout, domain.OutcomeCut} {
		for _, providerID := range []string{"", "prov-9"} {
			err := Problem(r, Attempt{Outcome: o, ProviderRequestID: providerID})
			e, ok := err.(*errs.Error)
			if !ok {
				t.Fatalf("%s: %T %v, want an *errs.Error", o, err, err)
			}
			want := map[string]any{"provider": "ai_provider_1", "request_id_gateway": "req-1"}
			if providerID != "" {
				want["provider_request_id"] = providerID
			}
			if !maps.Equal(e.Extensions, want) {
				t.Errorf("%s (provider id %q): extensions %v, want %v", o, providerID, e.Extensions, want)
			}
		}
	}
	if err := Problem(r, Attempt{Outcome: domain.OutcomeOK, ProviderRequestID: "prov-9"}); err != nil {
		t.Errorf("success: %v, want no problem", err)
	}
	if err := Problem(r, Attempt{Outcome: domain.OutcomeCallerCanceled}); !errors.Is(err, context.Canceled) {
		t.Errorf("caller canceled: %v, want context.Canceled", err)
	}
}
