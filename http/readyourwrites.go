package httpapi

import "github.com/platform/backend/domain/principal"

// waitsFor reports whether a caller's X-Platform-Min-Position may wait for a
// stream of the given organization: its own active organization (or every
// one for a platform-wide principal), and the platform tenant's shared
// streams (the service catalog, which every caller reads). Any other
// position is handled like one of a missing stream (projections.Reader
// WaitForCaller): answered at once, so a position tells nothing about
// another tenant. Public callers have no organization: only shared streams.
func waitsFor(p principal.Principal) func(organizationID string) bool {
	return func(organizationID string) bool {
		return p.SeesOrganization(organizationID) || organizationID == principal.PlatformTenant
	}
}
