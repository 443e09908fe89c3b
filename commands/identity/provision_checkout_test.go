package identity

import (
	"regexp"
	"slices"
	"testing"

	domain "github.com/platform/backend/domain/identity"
)

// TestCheckoutSlug: random, within the slug rules, never reserved.
func TestCheckoutSlug(t *testing.T) {
	shape := regexp.MustCompile(`^ws-[a-z2-7]{16}$`)
	seen := map[string]bool{}
	for range 1000 {
		s := checkoutSlug()
		if !shape.MatchString(s) || !domain.ValidSlug(s) || slices.Contains(domain.ReservedSlugs, s) || seen[s] {
			t.Fatalf("slug %q (seen before: %v)", s, seen[s])
		}
		seen[s] = true
	}
}
