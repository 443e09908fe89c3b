package apptest

import (
	"net/http"
	"testing"
	"time"
)

// Rebuild asks the operator's replay of a projection and waits until its
// generation 2, built from the log alone, serves the queries: what a test
// of "the read model rebuilt from the log equals the live one" reads next.
func (h *Harness) Rebuild(t testing.TB, projection string) {
	t.Helper()
	Must(t, h.Do(t, "ops", http.MethodPost, "/api/projections/"+projection+"/replay", h.OperatorKey(t), nil), http.StatusAccepted,
		"replay "+projection)
	Eventually(t, 90*time.Second, "generation 2 of "+projection+" to become active", func() bool {
		return h.Count(t, `SELECT count(*) FROM proj_generations WHERE projection = $1 AND generation = 2 AND state = 'active'`, projection) == 1
	})
}
