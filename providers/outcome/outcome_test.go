package outcome_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/platform/backend/providers/outcome"
)

type failure struct{ kind outcome.Kind }

func (f *failure) Error() string         { return string(f.kind) }
func (f *failure) Outcome() outcome.Kind { return f.kind }

func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		kind             outcome.Kind
		hurts, retryable bool
	}{
		{outcome.ProviderFault, true, true}, {outcome.RateLimited, false, true}, {outcome.Rejected, false, false},
		{outcome.Invalid, false, false}, {outcome.Unauthorized, false, false}, {outcome.Canceled, false, false},
	} {
		if tc.kind.HurtsProviderHealth() != tc.hurts || tc.kind.Retryable() != tc.retryable {
			t.Errorf("%s: health %v retry %v", tc.kind, tc.kind.HurtsProviderHealth(), tc.kind.Retryable())
		}
	}
	if outcome.Of(nil) != "" || outcome.Of(errors.New("x")) != outcome.ProviderFault ||
		outcome.Of(fmt.Errorf("wrapped: %w", &failure{outcome.Canceled})) != outcome.Canceled {
		t.Fatal("Of")
	}
}
