package invariants_test

import (
	"sort"
	"testing"

	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/apptest"
)

// started is a platform serving HTTP only (no workers): the tests read what
// the modules built.
func started(t *testing.T) *apptest.Harness {
	t.Helper()
	return apptest.Start(t, apptest.Options{NoWorkers: true})
}

// services are every service the modules built, in name order.
func services(t *testing.T) []httpapi.Service {
	t.Helper()
	h := started(t)
	names := make([]string, 0, len(h.App.Services))
	for n := range h.App.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]httpapi.Service, len(names))
	for i, n := range names {
		out[i] = h.App.Services[n]
	}
	return out
}
