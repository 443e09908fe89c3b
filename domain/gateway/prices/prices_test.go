package prices

import (
	"errors"
	"testing"
)

func TestCostRoundsUpAndNeverZero(t *testing.T) {
	p := tokens(0.15, 0.60) // 15e6 and 60e6 micro-cents per million
	if got := p.Cost(Units{InputTokens: 1}); got != 15 {
		t.Fatalf("1 input token: %d micro-cents, want 15", got)
	}
	cheap := Price{InputPerMillion: 67} // 0.000067 micro-cents a token
	if got := cheap.Cost(Units{InputTokens: 1}); got != 1 {
		t.Fatalf("a token of a very cheap model: %d, want 1 (rounded up)", got)
	}
	if got := cheap.Cost(Units{}); got != 0 {
		t.Fatalf("nothing consumed: %d", got)
	}
	if got := p.Cost(Units{InputTokens: 1_000_000, OutputTokens: 1_000_000}); got != 75_000_000 {
		t.Fatalf("a million each: %d, want 75e6 (75 cents)", got)
	}
	audio := Price{PerAudioSecond: 1000}
	if got := audio.Cost(Units{AudioMS: 1500}); got != 1500 {
		t.Fatalf("1.5 s: %d", got)
	}
}

func TestLookupFallsBackToAnyModel(t *testing.T) {
	if _, err := Current.Lookup("ai_provider_5", "whatever", OpRAGSearch); err != nil {
		t.Fatal(err)
	}
	if _, err := Current.Lookup("ai_provider_1", "gpt-unknown", OpChat); !errors.Is(err, ErrUnpriced) {
		t.Fatalf("unknown model: %v", err)
	}
}

func TestEveryTableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, tb := range Versions {
		if err := tb.Check(); err != nil {
			t.Error(err)
		}
		if seen[tb.Version] {
			t.Errorf("version %s twice", tb.Version)
		}
		seen[tb.Version] = true
	}
}
